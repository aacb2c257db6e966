/* Tile sizes by the model (sched/tile_model.h): every height and width of a small set, the
 * innermost width a multiple of 32 (a warp's worth of the contiguous dimension), the lowest
 * modeled time wins among the candidates that keep 2 or more blocks on each multiprocessor, if
 * any does. JIT_TILE's sizes, where given, replace the enumerated ones. */
#include "sched/tile_model.h"

#include <stdio.h>
#include <string.h>

/* zero-terminated; beyond TALL (hybrid) or TALL_SPLIT, only where most tiles are full and their
 * code unrolls whole (SJ_UNROLL_MAX_STMTS): a taller band moves fewer bytes per update, but its
 * steps in loops cost two to three times the instructions (jacobi-1d), and every tile's guarded
 * steps unrolled spilled registers (fe_small_types 32x64, h=16) */
static const int hybrid_heights[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 0};
/* Split tiles of one step keep no value from step to step: only the tile model's errors made them
 * win (rodinia_hotspot 2048^2 x 32, its per-step traffic modeled at 92 B/update, the emulator's
 * 12: split h=1 ran 1.2x the instructions and 1.5x the DRAM bytes of the per-step mapping). */
static const int split_heights[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64, 0};
enum { TALL = 8, TALL_SPLIT = 16 };
/* the share of the lowering's bound a full tile's steps may take: the partial tiles' code counts
 * too (jacobi-1d hybrid h=24 w=512: 250 statements in the full tiles' steps, beyond the bound
 * with the rest) */
#define UNROLL_ROOM 0.875
/* by the number of space dimensions after s0, zero-terminated: wider rows in fewer
 * dimensions, fewer candidates in 3-D (each one costs a few microseconds) */
static const long inner_widths[SJ_HYBRID_MAX_SPACE][8] = {
    {32, 64, 128, 256, 384, 448, 512}, {32, 64, 128, 256}, {32, 64, 128}};
static const long outer_widths[SJ_HYBRID_MAX_SPACE][8] = {{0}, {4, 8, 16, 32, 64}, {4, 8, 16, 32}};

typedef struct search {
  const sj_tm_stencil *s;
  const sj_gpu_device *d;
  sj_tm_candidate c;
  sj_tm_cost *top;
  long budget; /* the user's tiles: staged as far as they fit the device; else 0 */
  int kept;
  int searched_h;      /* the height is the search's, not the user's */
  sj_tm_cost rejected; /* the last candidate refused, for why none fits */
} search;

/* Keeps cost among the best SJ_TM_TOP, in the order of sj_tm_before(). */
static void keep(search *q, const sj_tm_cost *cost) {
  int at = q->kept < SJ_TM_TOP ? q->kept : SJ_TM_TOP;
  while (at > 0 && sj_tm_before(cost, &q->top[at - 1])) at--;
  if (at == SJ_TM_TOP) return;
  int last = q->kept < SJ_TM_TOP ? q->kept : SJ_TM_TOP - 1;
  memmove(&q->top[at + 1], &q->top[at], (size_t)(last - at) * sizeof *q->top);
  q->top[at] = *cost;
  if (q->kept < SJ_TM_TOP) q->kept++;
}

static void try_candidate(search *q) {
  sj_tm_cost cost;
  int rc = q->budget ? sj_tm_evaluate_within(q->s, &q->c, q->d, q->budget, &cost)
                     : sj_tm_evaluate(q->s, &q->c, q->d, &cost);
  int tall = q->searched_h && q->c.h > (q->c.kind == SJ_TM_HYBRID ? TALL : TALL_SPLIT);
  if (rc == 0 && tall &&
      (cost.unrolled <= 0 || cost.unrolled > UNROLL_ROOM * SJ_UNROLL_MAX_STMTS)) {
    snprintf(cost.why, sizeof cost.why, "a band too tall to unroll whole, or few full tiles");
    rc = -1;
  }
  if (rc == 0)
    keep(q, &cost);
  else
    q->rejected = cost;
}

/* Widths of dimension d onwards: the forced one, or each of the set for that dimension. */
static void widths_from(search *q, const sj_tile_spec *forced, int d) {
  if (d > q->s->n) {
    try_candidate(q);
    return;
  }
  if (forced && d < forced->nw) {
    q->c.w[d] = forced->w[d];
    widths_from(q, forced, d + 1);
    return;
  }
  const long *set = (d == q->s->n ? inner_widths : outer_widths)[q->s->n];
  for (int i = 0; set[i]; i++) {
    q->c.w[d] = set[i];
    widths_from(q, forced, d + 1);
  }
}

int sj_tm_search(const sj_tm_stencil *s, sj_tm_kind kind, int staged, const sj_tile_spec *forced,
                 const sj_gpu_device *d, sj_tm_cost *top) {
  search q;
  memset(&q, 0, sizeof q);
  q.s = s, q.d = d, q.top = top;
  q.c.kind = kind;
  q.c.staged = staged;
  if (forced && forced->h > 0 && forced->nw > s->n) q.budget = d->shared_per_block;
  if (kind == SJ_TM_PER_STEP) {
    try_candidate(&q);
  } else {
    const int *heights = kind == SJ_TM_HYBRID ? hybrid_heights : split_heights;
    int fixed = forced && forced->h > 0;
    q.searched_h = !fixed;
    for (int i = 0; fixed ? i < 1 : heights[i] > 0; i++) {
      q.c.h = fixed ? (int)forced->h : heights[i];
      widths_from(&q, forced, 0);
    }
  }
  if (!q.kept) top[0] = q.rejected;
  return q.kept;
}
