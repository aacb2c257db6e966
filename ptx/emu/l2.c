/* A model of DRAM traffic through the L2 cache: fully associative, least recently used, over
 * 32-byte sectors, of the device's size (JIT_EMU_L2_BYTES overrides it).
 *
 * Each launch starts with an empty L2 and ends by writing back every dirty sector, so the
 * figure is one launch's DRAM traffic whatever ran before: a read (or atomic) that misses
 * reads a sector from DRAM; a store that misses allocates its sector without reading it (the
 * L2 keeps byte masks); a dirty sector is written back once when it is evicted or at the end.
 *
 * Sectors are found through pages of 4096 (128 KB of device memory) holding node numbers, so
 * that neighbouring sectors share a page; nodes, in the order of first use, hold the LRU list. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

enum { PAGE_BITS = 12, PAGE_SECTORS = 1 << PAGE_BITS };

typedef struct page {
  uint64_t key; /* sector >> PAGE_BITS, plus 1; 0: a free slot of the page map */
  uint32_t *node;
} page;

struct emu_l2 {
  uint64_t capacity; /* sectors */
  uint32_t nnodes, cap_nodes;
  uint64_t *sector; /* by node (node 0 unused: 0 means none) */
  uint32_t *prev, *next;
  uint8_t *dirty;
  uint32_t head, tail; /* most and least recently used */
  page *pages;
  size_t npages, cap_pages;
  page *last;
  uint64_t dram_reads, writebacks;
};

emu_l2 *emu_l2_new(uint64_t bytes) {
  emu_l2 *l2 = calloc(1, sizeof *l2);
  if (!l2) abort();
  l2->capacity = bytes / 32 ? bytes / 32 : 1;
  if (l2->capacity > UINT32_MAX - 1) l2->capacity = UINT32_MAX - 1;
  return l2;
}

void emu_l2_free(emu_l2 *l2) {
  if (!l2) return;
  for (size_t k = 0; k < l2->cap_pages; k++) free(l2->pages[k].node);
  free(l2->pages);
  free(l2->sector);
  free(l2->prev);
  free(l2->next);
  free(l2->dirty);
  free(l2);
}

static size_t page_hash(uint64_t key, size_t cap) {
  key *= 0x9e3779b97f4a7c15ull;
  return (size_t)(key >> 32) & (cap - 1);
}

static void *grow(void *p, size_t n, size_t size) {
  p = realloc(p, n * size);
  if (!p) abort();
  return p;
}

/* The page of a sector; created (its nodes 0) when absent. */
static page *page_of(emu_l2 *l2, uint64_t sector) {
  uint64_t key = (sector >> PAGE_BITS) + 1;
  if (l2->last && l2->last->key == key) return l2->last;
  if ((l2->npages + 1) * 2 > l2->cap_pages) {
    size_t nc = l2->cap_pages ? 2 * l2->cap_pages : 64;
    page *np = calloc(nc, sizeof *np);
    if (!np) abort();
    for (size_t k = 0; k < l2->cap_pages; k++) {
      if (!l2->pages[k].key) continue;
      size_t h = page_hash(l2->pages[k].key, nc);
      while (np[h].key) h = (h + 1) & (nc - 1);
      np[h] = l2->pages[k];
    }
    free(l2->pages);
    l2->pages = np;
    l2->cap_pages = nc;
  }
  size_t h = page_hash(key, l2->cap_pages);
  while (l2->pages[h].key && l2->pages[h].key != key) h = (h + 1) & (l2->cap_pages - 1);
  page *pg = &l2->pages[h];
  if (!pg->key) {
    pg->key = key;
    pg->node = calloc(PAGE_SECTORS, sizeof *pg->node);
    if (!pg->node) abort();
    l2->npages++;
  }
  return l2->last = pg;
}

static void unlink_node(emu_l2 *l2, uint32_t id) {
  uint32_t p = l2->prev[id], n = l2->next[id];
  if (p)
    l2->next[p] = n;
  else
    l2->head = n;
  if (n)
    l2->prev[n] = p;
  else
    l2->tail = p;
}

static void push_front(emu_l2 *l2, uint32_t id) {
  l2->prev[id] = 0;
  l2->next[id] = l2->head;
  if (l2->head) l2->prev[l2->head] = id;
  l2->head = id;
  if (!l2->tail) l2->tail = id;
}

/* A node for a new sector: a fresh one while the L2 has room, else the least recently used,
 * written back if dirty. */
static uint32_t take_node(emu_l2 *l2) {
  if (l2->nnodes < l2->capacity) {
    uint32_t id = ++l2->nnodes;
    if (id >= l2->cap_nodes) {
      size_t nc = l2->cap_nodes ? 2 * (size_t)l2->cap_nodes : 4096;
      if (nc > l2->capacity + 1) nc = l2->capacity + 1;
      l2->sector = grow(l2->sector, nc, sizeof *l2->sector);
      l2->prev = grow(l2->prev, nc, sizeof *l2->prev);
      l2->next = grow(l2->next, nc, sizeof *l2->next);
      l2->dirty = grow(l2->dirty, nc, sizeof *l2->dirty);
      l2->cap_nodes = (uint32_t)nc;
    }
    return id;
  }
  uint32_t id = l2->tail;
  if (l2->dirty[id]) l2->writebacks++;
  uint64_t old = l2->sector[id];
  page_of(l2, old)->node[old & (PAGE_SECTORS - 1)] = 0;
  unlink_node(l2, id);
  return id;
}

void emu_l2_access(emu_l2 *l2, uint64_t sector, int kind) {
  uint32_t *slot = &page_of(l2, sector)->node[sector & (PAGE_SECTORS - 1)];
  uint32_t id = *slot;
  if (id) {
    if (kind & EMU_L2_WRITE) l2->dirty[id] = 1;
    if (id != l2->head) {
      unlink_node(l2, id);
      push_front(l2, id);
    }
    return;
  }
  if (kind & EMU_L2_READ) l2->dram_reads++;
  id = take_node(l2); /* pages' node arrays never move: slot stays valid */
  *slot = id;
  l2->sector[id] = sector;
  l2->dirty[id] = (kind & EMU_L2_WRITE) != 0;
  push_front(l2, id);
}

uint64_t emu_l2_dram_bytes(const emu_l2 *l2) {
  uint64_t dirty = 0;
  for (uint32_t id = 1; id <= l2->nnodes; id++) dirty += l2->dirty[id];
  return 32 * (l2->dram_reads + l2->writebacks + dirty);
}
