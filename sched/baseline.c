/* The GPU baseline schedule, one time step per launch (PPCG's default for stencils). For
 * each parallel band, the tile grid runs over blocks, the points of a tile over threads,
 * and along the innermost mapped dimension each thread takes ppt points strided by the
 * thread count (so neighbouring threads stay on neighbouring elements: coalesced),
 * unrolled. Sequential loops above stay on the host; sequential loops inside stay inside
 * the kernel. The mapping is written into the schedule tree (see map_band); the printers
 * only print what isl generates from it. */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/ast.h>
#include <isl/id.h>
#include <isl/union_set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "base/buf.h"
#include "stenciljit.h"

typedef struct gpu_state {
  sj_model *m;
  const unsigned *max_grid;
  sj_plan *plan;
  sj_buf *explain;
  sj_error *err;
  int failed;
} gpu_state;

/* Threads per block and points per thread by number of mapped dimensions (x first). */
static const unsigned threads_for[4][3] = {{1, 1, 1}, {256, 1, 1}, {32, 8, 1}, {32, 4, 2}};
static const int ppt_for[4] = {1, 4, 4, 4};

/* The parallel flags of band's members; 0 on success. */
static int band_flags(gpu_state *st, __isl_keep isl_schedule_node *band, int *parallel) {
  if (isl_schedule_node_band_n_member(band) > 16 || sj_band_parallel(st->m, band, parallel)) {
    st->failed = 1;
    return -1;
  }
  return 0;
}

static int any_parallel_below(gpu_state *st, __isl_keep isl_schedule_node *node);

static int any_parallel(gpu_state *st, __isl_keep isl_schedule_node *node) {
  if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
    int n = isl_schedule_node_band_n_member(node), parallel[16];
    if (band_flags(st, node, parallel)) return 0;
    for (int k = 0; k < n; k++)
      if (parallel[k]) return 1;
  }
  return any_parallel_below(st, node);
}

static int any_parallel_below(gpu_state *st, __isl_keep isl_schedule_node *node) {
  int n = isl_schedule_node_n_children(node), found = 0;
  for (int i = 0; i < n && !found; i++) {
    isl_schedule_node *c = isl_schedule_node_get_child(node, i);
    found = any_parallel(st, c);
    isl_schedule_node_free(c);
  }
  return found;
}

static sj_kernel *new_kernel(gpu_state *st) {
  sj_kernel *k = calloc(1, sizeof *k);
  if (!k) abort();
  k->tag = SJ_ID_KERNEL;
  k->id = st->plan->nkernels++;
  for (int d = 0; d < 3; d++) k->grid[d] = k->block[d] = 1;
  return k;
}

static __isl_give isl_schedule_node *single_thread(gpu_state *st,
                                                   __isl_take isl_schedule_node *node) {
  sj_kernel *k = new_kernel(st);
  snprintf(k->why, sizeof k->why, "no parallel loop: runs in one thread");
  sj_buf_printf(st->explain, "  kernel %d: grid 1x1x1, block 1x1x1: %s\n", k->id, k->why);
  return sj_mark_kernel(node, k);
}

/* Maps the band of nm parallel members: tiles of the band go to blocks, the points of a
 * tile to threads, ppt points a block width apart along x (coalesced), unrolled; isl
 * guards only the copies that may leave the domain. The tree becomes kernel mark - context
 * (id bounds) - filter (bind_points) - threads mark - [points band] - the band's child. */
static __isl_give isl_schedule_node *map_band(gpu_state *st, __isl_take isl_schedule_node *node) {
  int nm = isl_schedule_node_band_n_member(node);
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  sj_kernel *k = new_kernel(st);
  int ppt = ppt_for[nm], dim[3];
  long lo[3] = {0, 0, 0}, tile[3] = {1, 1, 1};
  for (int i = 0; i < nm; i++) {
    int d = nm - 1 - i; /* the innermost member runs along x */
    dim[i] = d;
    long hi;
    if (sj_member_range(node, i, &lo[i], &hi)) st->failed = 1;
    long t = threads_for[nm][d];
    /* along x, tiles start on a multiple of the warp width: aligned, fewer sectors */
    if (d == 0 && nm > 1) lo[i] -= ((lo[i] % t) + t) % t;
    long extent = hi >= lo[i] ? hi - lo[i] + 1 : 1;
    if (extent == 1) t = 1; /* one value: one thread runs it */
    tile[i] = d == 0 ? t * ppt : t;
    if (d == 0 && extent <= t) tile[i] = t; /* fewer points than threads: one each */
    long grid = (extent + tile[i] - 1) / tile[i];
    if (grid > (long)st->max_grid[d]) {
      st->failed = 1;
      sj_error_set(st->err, JIT_ERR_DEVICE,
                   "the grid needs %ld blocks along %c, the device allows %u", grid, "xyz"[d],
                   st -> max_grid[d]);
    }
    k->grid[d] = (unsigned)grid;
    k->block[d] = (unsigned)t;
    sj_plan_add_tile(st->plan, tile[i]);
  }
  int points = (int)(tile[nm - 1] / k->block[0]);
  node = sj_bind_points(node, nm, lo, tile, dim, k->block, points);
  node = isl_schedule_node_insert_context(
      node,
      sj_id_bounds(ctx, isl_schedule_node_get_schedule_depth(node), nm, dim, k->grid, k->block));
  snprintf(k->why, sizeof k->why,
           "%d parallel loop%s: %d point%s per thread along x, %u apart, unrolled", nm,
           nm > 1 ? "s" : "", points, points > 1 ? "s" : "", k->block[0]);
  sj_buf_printf(st->explain, "  kernel %d: grid %ux%ux%u, block %ux%ux%u: %s\n", k->id, k->grid[0],
                k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->why);
  return sj_mark_kernel(node, k);
}

static __isl_give isl_schedule_node *visit(void *user, __isl_take isl_schedule_node *node) {
  gpu_state *st = user;
  enum isl_schedule_node_type type = isl_schedule_node_get_type(node);
  if (type == isl_schedule_node_leaf) return single_thread(st, node);
  if (type == isl_schedule_node_band) {
    int n = isl_schedule_node_band_n_member(node), p = 0, parallel[16];
    if (band_flags(st, node, parallel)) return node;
    while (p < n && !parallel[p]) p++;
    if (p == n && !any_parallel_below(st, node)) return single_thread(st, node);
    if (p == n) { /* sequential here, parallel below: a host loop */
      sj_buf_printf(st->explain, "  host loop%s over %d sequential member%s\n", n > 1 ? "s" : "", n,
                    n > 1 ? "s" : "");
      node = isl_schedule_node_child(node, 0);
      node = visit(st, node);
      return isl_schedule_node_parent(node);
    }
    int up = 0;
    if (p > 0) { /* outer sequential members run on the host */
      node = isl_schedule_node_band_split(node, p);
      node = isl_schedule_node_child(node, 0);
      up++;
      n -= p;
    }
    int q = 1;
    while (q < n && parallel[p + q]) q++;
    if (q < n) node = isl_schedule_node_band_split(node, q);
    if (q > 3) { /* the outer parallel members beyond three launch from the host */
      node = isl_schedule_node_band_split(node, q - 3);
      node = isl_schedule_node_child(node, 0);
      up++;
    }
    node = map_band(st, node);
    while (up--) node = isl_schedule_node_parent(node);
    return node;
  }
  return sj_each_child(node, visit, st);
}

int sj_schedule_baseline(sj_model *m, const unsigned max_grid[3], sj_plan *plan, sj_error *err) {
  sj_buf explain = {0};
  memset(plan, 0, sizeof *plan);
  gpu_state st = {m, max_grid, plan, &explain, err, 0};
  sj_buf_printf(&explain, "GPU schedule (one launch per kernel and host iteration):\n");
  isl_schedule_node *root = isl_schedule_get_root(m->original);
  if (m->nstmts) root = visit(&st, isl_schedule_node_child(root, 0));
  root = isl_schedule_node_root(root);
  plan->schedule = isl_schedule_node_get_schedule(root);
  isl_schedule_node_free(root);
  plan->nthreads = 1;
  plan->explain = sj_buf_take(&explain);
  if (st.failed || !plan->schedule) {
    int status = err->status ? err->status : JIT_ERR_INTERNAL;
    if (!err->status) sj_error_set(err, status, "isl failed while mapping to the GPU");
    sj_plan_clear(plan);
    return status;
  }
  return 0;
}
