/* The CPU schedule: the C function's own order, with the outermost parallel loops of each
 * nest tiled and the tile loop spread over the worker threads. Tiles of the outer loop are
 * one per thread (balanced, no scheduling cost); middle members are tiled by 16 so a 3-D
 * sweep reuses its planes in cache; the innermost is left whole (the lowering unrolls it). */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/val.h>

#include "base/buf.h"
#include "stenciljit.h"

typedef struct cpu_state {
  sj_model *m;
  int nthreads;
  sj_plan *plan;
  sj_buf *explain;
  int failed;
} cpu_state;

static int first_parallel(cpu_state *st, __isl_keep isl_schedule_node *band, int *parallel) {
  int n = isl_schedule_node_band_n_member(band);
  if (n > 16 || sj_band_parallel(st->m, band, parallel)) {
    st->failed = 1;
    return -1;
  }
  for (int k = 0; k < n; k++)
    if (parallel[k]) return k;
  return -1;
}

static int one_iteration(__isl_keep isl_schedule_node *band, int member) {
  long lo, hi;
  return sj_member_range(band, member, &lo, &hi) == 0 && hi <= lo;
}

static long tile_size(int member, int n, long extent, int nthreads) {
  if (extent < 1) extent = 1;
  if (member == 0) return (extent + nthreads - 1) / nthreads;
  long cap = member == n - 1 ? extent : 16;
  return extent < cap ? extent : cap;
}

static __isl_give isl_schedule_node *parallelize(cpu_state *st, __isl_take isl_schedule_node *node,
                                                 const int *parallel, int p) {
  int up = 0;
  if (p > 0) {
    node = isl_schedule_node_band_split(node, p);
    node = isl_schedule_node_child(node, 0);
    up++;
  }
  int n = isl_schedule_node_band_n_member(node), q = 1;
  while (q < n && parallel[p + q]) q++;
  if (q < n) node = isl_schedule_node_band_split(node, q);

  long lo[16], size[16];
  sj_buf_printf(st->explain, "  parallel loops");
  for (int k = 0; k < q; k++) {
    long hi;
    if (sj_member_range(node, k, &lo[k], &hi)) st->failed = 1;
    size[k] = tile_size(k, q, hi - lo[k] + 1, st->nthreads);
    if (hi < lo[k]) lo[k] = 0;
    sj_plan_add_tile(st->plan, size[k]);
    sj_buf_printf(st->explain, " [%ld..%ld] tile %ld", lo[k], hi, size[k]);
  }
  sj_buf_printf(st->explain, "; tile loop of the first spread over %d threads\n", st->nthreads);
  /* tiles start at the lower bound, not at 0, so none is partial at the low end */
  node = isl_schedule_node_parent(sj_tile(sj_band_start_at(node, lo), size));
  node = isl_schedule_node_insert_mark(
      node, isl_id_alloc(isl_schedule_node_get_ctx(node), "parallel", (void *)&sj_parallel_tag));
  while (up--) node = isl_schedule_node_parent(node);
  return node;
}

static __isl_give isl_schedule_node *visit(void *user, __isl_take isl_schedule_node *node) {
  cpu_state *st = user;
  if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
    int n = isl_schedule_node_band_n_member(node), parallel[16];
    int p = first_parallel(st, node, parallel);
    /* a loop of one iteration disappears from the AST, and the loop under it would be
     * spread over the workers in its place: only loops that iterate are spread */
    while (p >= 0 && one_iteration(node, p)) {
      do p++;
      while (p < n && !parallel[p]);
      if (p == n) p = -1;
    }
    if (p >= 0) return parallelize(st, node, parallel, p);
    sj_buf_printf(st->explain, "  sequential band of %d loop%s (no parallel loop)\n", n,
                  n > 1 ? "s" : "");
  }
  return sj_each_child(node, visit, st);
}

/* Rough instance count: the sum of the statements' bounding boxes. */
static double work_estimate(sj_model *m) {
  double total = 0;
  for (int i = 0; i < m->nstmts; i++) {
    double vol = 1;
    for (int k = 0; k < m->stmts[i]->depth; k++) {
      long lo, hi;
      if (sj_set_dim_range(m->stmts[i]->domain, k, &lo, &hi)) return 1e18;
      vol *= hi >= lo ? (double)(hi - lo + 1) : 0;
    }
    total += vol;
  }
  return total;
}

int sj_schedule_cpu(sj_model *m, const sj_stencil *sten, const sj_cpu_options *o, sj_plan *plan,
                    sj_error *err) {
  sj_buf explain = {0}, why = {0};
  memset(plan, 0, sizeof *plan);
  int nthreads = o->nthreads;
  /* Below this many instances a barrier per parallel loop costs more than it saves; forced
   * time tiling keeps the workers (the tests run tiny tiled kernels on every thread). */
  int small = work_estimate(m) < 32768;
  if (small && o->tiling != SJ_TILING_TIME) nthreads = 1;
  sj_buf_printf(&explain, "CPU schedule (%d thread%s):\n", nthreads, nthreads > 1 ? "s" : "");
  sj_cpu_options tiled = *o;
  tiled.nthreads = nthreads;
  if (o->tiling != SJ_TILING_NONE &&
      sj_schedule_cpu_tiled(m, sten, &tiled, plan, &explain, &why) == 0) {
    plan->nthreads = nthreads;
    plan->time_tiled = 1;
    plan->explain = sj_buf_take(&explain);
    return 0;
  }
  if (o->tiling == SJ_TILING_NONE) sj_buf_puts(&why, o->why_not);
  sj_buf_printf(&explain, "  not time-tiled: %s\n", why.data ? why.data : "");
  sj_buf_free(&why);
  cpu_state st = {m, nthreads, plan, &explain, 0};
  isl_schedule_node *root = isl_schedule_get_root(m->original);
  root = visit(&st, root);
  plan->schedule = isl_schedule_node_get_schedule(root);
  isl_schedule_node_free(root);
  plan->nthreads = nthreads;
  plan->explain = sj_buf_take(&explain);
  if (st.failed || !plan->schedule) {
    sj_plan_clear(plan);
    return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed while scheduling for the CPU");
  }
  return 0;
}

void sj_plan_clear(sj_plan *plan) {
  isl_schedule_free(plan->schedule);
  free(plan->explain);
  free(plan->tile);
  memset(plan, 0, sizeof *plan);
}
