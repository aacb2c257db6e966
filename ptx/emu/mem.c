/* Device memory: a sorted table of allocations in a fake 64-bit device address space.
 * Allocations are 256-byte aligned and separated by unmapped gaps, so an access past the
 * end of one never lands in the next; an access must lie entirely inside one allocation. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

typedef struct {
  uint64_t dev, size;
  uint8_t *host;
  const void *owner;
} alloc;

static alloc *tab;
static size_t ntab, captab;
static uint64_t next_dev = EMU_GLOBAL_BASE;
static size_t last_hit;
static uint64_t used;

CUresult emu_mem_alloc_owned(uint64_t size, uint64_t *dev, const void *owner) {
  if (size == 0 || size > (1ull << 40)) return CUDA_ERROR_OUT_OF_MEMORY;
  uint8_t *h = calloc(1, (size_t)size);
  if (!h) return CUDA_ERROR_OUT_OF_MEMORY;
  if (ntab == captab) {
    size_t nc = captab ? 2 * captab : 64;
    alloc *nt = realloc(tab, nc * sizeof *nt);
    if (!nt) {
      free(h);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    tab = nt;
    captab = nc;
  }
  /* addresses only grow, so appending keeps the table sorted */
  uint64_t d = next_dev;
  next_dev = (d + size + 4096 + 255) & ~255ull;
  tab[ntab++] = (alloc){d, size, h, owner};
  used += size;
  *dev = d;
  return CUDA_SUCCESS;
}

static long find(uint64_t a) {
  if (last_hit < ntab && a >= tab[last_hit].dev && a < tab[last_hit].dev + tab[last_hit].size)
    return (long)last_hit;
  size_t lo = 0, hi = ntab;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (tab[mid].dev + tab[mid].size <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < ntab && a >= tab[lo].dev && a < tab[lo].dev + tab[lo].size) {
    last_hit = lo;
    return (long)lo;
  }
  return -1;
}

CUresult emu_mem_free(uint64_t dev) {
  long k = find(dev);
  if (k < 0 || tab[k].dev != dev) return CUDA_ERROR_INVALID_VALUE;
  free(tab[k].host);
  used -= tab[k].size;
  memmove(&tab[k], &tab[k + 1], (ntab - (size_t)k - 1) * sizeof *tab);
  ntab--;
  last_hit = 0;
  if (ntab == 0) {
    free(tab);
    tab = NULL;
    captab = 0;
  }
  return CUDA_SUCCESS;
}

void *emu_mem_host(uint64_t dev, uint64_t size) {
  long k = find(dev);
  if (k < 0) return NULL;
  const alloc *a = &tab[k];
  if (size > a->size || dev - a->dev > a->size - size) return NULL;
  return a->host + (dev - a->dev);
}

uint64_t emu_mem_used(void) {
  return used;
}

CUresult emu_mem_alloc(uint64_t size, uint64_t *dev) {
  return emu_mem_alloc_owned(size, dev, NULL);
}

int emu_mem_owned_by(uint64_t dev, const void *owner) {
  long k = find(dev);
  return k >= 0 && tab[k].dev == dev && tab[k].owner == owner;
}

void emu_mem_free_owner(const void *owner) {
  size_t j = 0;
  for (size_t k = 0; k < ntab; k++) {
    if (tab[k].owner == owner && owner) {
      free(tab[k].host);
      used -= tab[k].size;
    } else
      tab[j++] = tab[k];
  }
  ntab = j;
  last_hit = 0;
  if (ntab == 0) {
    free(tab);
    tab = NULL;
    captab = 0;
  }
}
