/* The GPU baseline schedule. For each parallel band, the tile grid runs over blocks, the
 * points of a tile over threads, and along the outermost mapped dimension each thread takes
 * ppt points strided by the thread count (so neighbouring threads stay on neighbouring
 * elements: coalesced), unrolled. Sequential loops above stay on the host; sequential loops
 * inside stay inside the kernel. */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/id.h>
#include <isl/union_set.h>
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

static sj_kernel_map *new_kernel(gpu_state *st) {
  if (st->plan->nkernels == 64) {
    st->failed = 1;
    return NULL;
  }
  sj_kernel_map *k = calloc(1, sizeof *k);
  k->id = st->plan->nkernels;
  st->plan->kernels[st->plan->nkernels++] = k;
  for (int d = 0; d < 3; d++) k->grid[d] = k->block[d] = 1;
  k->ppt = 1;
  return k;
}

static __isl_give isl_schedule_node *mark_kernel(__isl_take isl_schedule_node *node,
                                                 sj_kernel_map *k) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  return isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, SJ_MARK_KERNEL, k));
}

static __isl_give isl_schedule_node *single_thread(gpu_state *st,
                                                   __isl_take isl_schedule_node *node) {
  sj_kernel_map *k = new_kernel(st);
  if (!k) return node;
  snprintf(k->why, sizeof k->why, "no parallel loop: runs in one thread");
  sj_buf_printf(st->explain, "  kernel %d: grid 1x1x1, block 1x1x1: %s\n", k->id, k->why);
  return mark_kernel(node, k);
}

/* Maps the band of nm parallel members: grid and block sizes from the members' ranges. */
static __isl_give isl_schedule_node *map_band(gpu_state *st, __isl_take isl_schedule_node *node) {
  int nm = isl_schedule_node_band_n_member(node);
  sj_kernel_map *k = new_kernel(st);
  if (!k) return node;
  k->nmapped = nm;
  k->ppt = ppt_for[nm];
  for (int i = 0; i < nm; i++) {
    int dim = nm - 1 - i; /* the innermost member runs along x */
    k->dim[i] = dim;
    long lo, hi;
    if (sj_member_range(node, i, &lo, &hi)) st->failed = 1;
    long t = threads_for[nm][dim];
    /* along x, tiles start on a multiple of the warp width: aligned, fewer sectors */
    if (dim == 0 && nm > 1) lo -= ((lo % t) + t) % t;
    long extent = hi >= lo ? hi - lo + 1 : 1;
    if (extent == 1) t = 1; /* isl emits no loop for one value: one thread must run it */
    long tile = i == nm - 1 ? t * k->ppt : t; /* points per thread along x, a warp apart */
    long grid = (extent + tile - 1) / tile;
    if (grid > (long)st->max_grid[dim]) {
      st->failed = 1;
      sj_error_set(st->err, JIT_ERR_DEVICE,
                   "the grid needs %ld blocks along %c, the device allows %u", grid, "xyz"[dim],
                   st -> max_grid[dim]);
    }
    k->lo[i] = lo;
    k->tile[i] = tile;
    k->grid[dim] = (unsigned)grid;
    k->block[dim] = (unsigned)t;
  }
  if (k->tile[nm - 1] == k->block[0]) k->ppt = 1;
  for (int i = 0; i < nm; i++)
    node = isl_schedule_node_band_member_set_ast_loop_type(node, i, isl_ast_loop_atomic);
  k->band_depth = isl_schedule_node_get_schedule_depth(node);
  snprintf(k->why, sizeof k->why,
           "%d parallel loop%s: %d point%s per thread along x, %u apart, unrolled", nm,
           nm > 1 ? "s" : "", k->ppt, k->ppt > 1 ? "s" : "", k->block[0]);
  sj_buf_printf(st->explain, "  kernel %d: grid %ux%ux%u, block %ux%ux%u: %s\n", k->id, k->grid[0],
                k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->why);
  return mark_kernel(node, k);
}

static __isl_give isl_schedule_node *visit(gpu_state *st, __isl_take isl_schedule_node *node) {
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
  int n = isl_schedule_node_n_children(node);
  for (int i = 0; i < n; i++) {
    node = isl_schedule_node_child(node, i);
    node = visit(st, node);
    node = isl_schedule_node_parent(node);
  }
  return node;
}

int sj_schedule_gpu(sj_model *m, const unsigned max_grid[3], sj_plan *plan, sj_error *err) {
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
  for (int i = 0; i < plan->nkernels && plan->ntiles < 8; i++)
    for (int d = 0; d < plan->kernels[i]->nmapped && plan->ntiles < 8; d++)
      plan->tile[plan->ntiles++] = (int)plan->kernels[i]->tile[d];
  return 0;
}
