/* Shared-memory race detector.
 *
 * Each byte of shared memory remembers its last writer and its reader(s) together with the
 * barrier interval ("epoch") of those accesses. Two accesses to the same byte by different
 * threads within one interval, at least one of them a write, are a race: read-after-write,
 * write-after-read or write-after-write. Epochs grow across blocks, so nothing is reset
 * between blocks except when the counter would wrap. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MULTI (-2)

void emu_race_reset(emu_race *r, size_t bytes) {
  if (bytes > r->n) {
    free(r->cells);
    r->cells = calloc(bytes ? bytes : 1, sizeof *r->cells);
    if (!r->cells) abort();
    r->n = bytes;
    r->epoch = 0;
  }
  if (r->epoch > 0xfffffff0u) {
    memset(r->cells, 0, r->n * sizeof *r->cells);
    r->epoch = 0;
  }
  r->epoch++; /* a new block starts a new interval */
}

void emu_race_barrier(emu_race *r) {
  r->epoch++;
}

void emu_race_free(emu_race *r) {
  free(r->cells);
  r->cells = NULL;
  r->n = 0;
}

int emu_race_access(emu_race *r, uint32_t off, uint32_t size, int tid, int line, int is_write,
                    int *other, int *other_line) {
  uint32_t e = r->epoch;
  for (uint32_t k = 0; k < size; k++) {
    emu_race_cell *c = &r->cells[off + k];
    if (c->wep == e && c->wtid != tid) {
      *other = c->wtid;
      *other_line = c->wline;
      return is_write ? 3 : 1;
    }
    if (is_write) {
      if (c->rep == e && c->rtid != tid) {
        *other = c->rtid;
        *other_line = c->rline;
        return 2;
      }
      c->wtid = tid;
      c->wep = e;
      c->wline = line;
    } else if (c->rep != e) {
      c->rtid = tid;
      c->rep = e;
      c->rline = line;
    } else if (c->rtid != tid) {
      c->rtid = MULTI;
      c->rline = line;
    }
  }
  return 0;
}
