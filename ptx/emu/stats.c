/* Per-launch counters and their JSON line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

uint64_t emu_l2_bytes(void) {
  const char *e = getenv("JIT_EMU_L2_BYTES");
  unsigned long long v = e && *e ? strtoull(e, NULL, 10) : 0;
  return v ? v : 50ull * 1024 * 1024;
}

void emu_stats_init(emu_stats *st, int model) {
  memset(st, 0, sizeof *st);
  if (model) st->l2 = emu_l2_new(emu_l2_bytes());
  st->set_cap = EMU_SECTOR_SET_MIN;
  st->set = calloc(st->set_cap, sizeof *st->set);
  if (!st->set) abort();
}

void emu_stats_free(emu_stats *st) {
  free(st->by_insn);
  st->by_insn = NULL;
  free(st->block_instructions);
  st->block_instructions = NULL;
  free(st->set);
  st->set = NULL;
  emu_l2_free(st->l2);
  st->l2 = NULL;
}

void emu_stats_block(emu_stats *st, uint64_t instructions, uint64_t barriers) {
  if (instructions > st->busiest_block_instructions) st->busiest_block_instructions = instructions;
  if (barriers > st->busiest_block_barriers) st->busiest_block_barriers = barriers;
  if (!st->l2) return; /* the counters are not written */
  if (st->nblocks == st->blocks_cap) {
    st->blocks_cap = st->blocks_cap ? 2 * st->blocks_cap : 256;
    st->block_instructions =
        realloc(st->block_instructions, st->blocks_cap * sizeof *st->block_instructions);
    if (!st->block_instructions) abort();
  }
  st->block_instructions[st->nblocks++] = instructions;
}

static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The blocks' instructions: least, deciles 1, 5 and 9, most (sorts them in place). */
static void write_block_spread(FILE *f, emu_stats *st) {
  size_t n = st->nblocks;
  if (!n) return;
  uint64_t *v = st->block_instructions;
  qsort(v, n, sizeof *v, by_value);
  fprintf(f,
          ",\"block_instructions\":{\"blocks\":%zu,\"min\":%llu,\"p10\":%llu,"
          "\"median\":%llu,\"p90\":%llu,\"max\":%llu}",
          n, (unsigned long long)v[0], (unsigned long long)v[n / 10], (unsigned long long)v[n / 2],
          (unsigned long long)v[n * 9 / 10], (unsigned long long)v[n - 1]);
}

static size_t hash(uint64_t v, size_t cap) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  return (size_t)v & (cap - 1);
}

/* Adds a 32-byte sector number to the launch's set of distinct sectors. */
static void add_sector(emu_stats *st, uint64_t sector) {
  uint64_t key = sector + 1;
  size_t k = hash(key, st->set_cap);
  while (st->set[k]) {
    if (st->set[k] == key) return;
    k = (k + 1) & (st->set_cap - 1);
  }
  st->set[k] = key;
  if (++st->set_n * 2 > st->set_cap) {
    size_t nc = st->set_cap * 2;
    uint64_t *ns = calloc(nc, sizeof *ns);
    if (!ns) abort();
    for (size_t j = 0; j < st->set_cap; j++)
      if (st->set[j]) {
        size_t h = hash(st->set[j], nc);
        while (ns[h]) h = (h + 1) & (nc - 1);
        ns[h] = st->set[j];
      }
    free(st->set);
    st->set = ns;
    st->set_cap = nc;
  }
}

void emu_stats_sectors(emu_stats *st, const uint64_t *sectors, int n, int kind) {
  for (int k = 0; k < n; k++) {
    add_sector(st, sectors[k]);
    if (st->l2) emu_l2_access(st->l2, sectors[k], kind);
  }
}

static void write_name(FILE *f, const char *name) {
  for (const char *c = name; *c; c++) {
    if (*c == '"' || *c == '\\') fputc('\\', f);
    if ((unsigned char)*c >= 0x20) fputc(*c, f);
  }
}

void emu_stats_write_profile(const emu_stats *st, const char *path, const emu_func *f) {
  FILE *out = fopen(path, "a");
  if (!out) return;
  fprintf(out, "{\"kernel\":\"");
  write_name(out, f->name);
  fprintf(out, "\",\"lines\":{");
  /* several instructions may share a line: the lines' counts are summed */
  int first = 1;
  for (int k = 0; k < f->ncode; k++) {
    uint64_t n = st->by_insn[k];
    while (k + 1 < f->ncode && f->code[k + 1].line == f->code[k].line) n += st->by_insn[++k];
    if (!n) continue;
    fprintf(out, "%s\"%d\":%llu", first ? "" : ",", f->code[k].line, (unsigned long long)n);
    first = 0;
  }
  fprintf(out, "}}\n");
  fclose(out);
}

void emu_stats_write(emu_stats *st, const char *path, const char *kernel, const unsigned grid[3],
                     const unsigned block[3]) {
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "{\"kernel\":\"");
  write_name(f, kernel);
  fprintf(f, "\",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u]", grid[0], grid[1], grid[2], block[0],
          block[1], block[2]);
  fprintf(f, ",\"instructions\":%llu,\"instructions_by_class\":{",
          (unsigned long long)st->instructions);
  for (int k = 0; k < EMU_CLS_N; k++)
    fprintf(f, "%s\"%s\":%llu", k ? "," : "", emu_cls_names[k],
            (unsigned long long)st->by_class[k]);
  fprintf(f,
          "},\"global_load_requests\":%llu,\"global_store_requests\":%llu,"
          "\"global_load_bytes\":%llu,\"global_store_bytes\":%llu,\"global_sectors\":%llu,"
          "\"unique_sectors\":%llu,\"shared_loads\":%llu,\"shared_stores\":%llu,"
          "\"bank_conflicts\":%llu,\"barriers\":%llu,\"atomics\":%llu,"
          "\"busiest_block_instructions\":%llu,\"busiest_block_barriers\":%llu,"
          "\"shared_bytes\":%u,\"dynamic_shared_bytes\":%u",
          (unsigned long long)st->gld_req, (unsigned long long)st->gst_req,
          (unsigned long long)st->gld_bytes, (unsigned long long)st->gst_bytes,
          (unsigned long long)st->gsectors, (unsigned long long)st->set_n,
          (unsigned long long)st->sh_loads, (unsigned long long)st->sh_stores,
          (unsigned long long)st->bank_conflicts, (unsigned long long)st->barriers,
          (unsigned long long)st->atomics, (unsigned long long)st->busiest_block_instructions,
          (unsigned long long)st->busiest_block_barriers, st->shared_bytes,
          st->dynamic_shared_bytes);
  if (st->l2)
    fprintf(f, ",\"wave_blocks\":%u,\"l2_model_bytes\":%llu,\"l2_model_dram_bytes\":%llu",
            st->wave_blocks, (unsigned long long)emu_l2_bytes(),
            (unsigned long long)emu_l2_dram_bytes(st->l2));
  write_block_spread(f, st);
  fprintf(f, "}\n");
  fclose(f);
}
