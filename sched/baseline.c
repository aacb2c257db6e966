/* The GPU mapping of a schedule tree (PPCG's default for stencils, one time step per launch,
 * and for isl's schedules alike). For each parallel band, the tile grid runs over blocks, the
 * points of a tile over threads, and along x each thread takes ppt points strided by the
 * thread count (so neighbouring threads stay on neighbouring elements: coalesced), unrolled.
 * Sequential loops above stay on the host; sequential loops inside stay inside the kernel.
 * The mapping is written into the schedule tree (see map_band); the printers only print
 * what isl generates from it. Each kernel's modeled time is summed for sched/gpu.c, which
 * compares schedules. */
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

/* The time model, in the time one thread takes for a statement instance: a launch costs
 * about 5 us, some 200 instances; a GPU runs at most 132 x 2048 threads at once; a thread
 * launched without work (outside the domain: a wavefront's corners) costs about as much as
 * an instance, its guards. */
#define LAUNCH_COST 200.0
#define GPU_THREADS (132.0 * 2048.0)
#define IDLE_COST 1.0

typedef struct gpu_state {
  sj_model *m;
  const unsigned *max_grid;
  sj_plan *plan;
  sj_buf *explain;
  sj_error *err;
  int failed;
  int coincident;    /* the tree is isl's: its coincidence flags tell the parallel members */
  double launches;   /* trips of the host loops around the node being mapped */
  double cost;       /* the modeled time of the kernels mapped so far */
  sj_reduction *red; /* the model's reductions it may run in any order (sj_reductions_exact) */
  int nred;
} gpu_state;

/* The parallel flags of band's members; 0 on success. */
static int band_flags(gpu_state *st, __isl_keep isl_schedule_node *band, int *parallel) {
  int n = isl_schedule_node_band_n_member(band);
  if (n > 16 || (!st->coincident && sj_band_parallel(st->m, band, parallel))) {
    st->failed = 1;
    return -1;
  }
  for (int k = 0; k < n && st->coincident; k++)
    parallel[k] = isl_schedule_node_band_member_get_coincident(band, k) > 0;
  return 0;
}

static int any_parallel_below(gpu_state *st, __isl_keep isl_schedule_node *node);
static int reduction_members(gpu_state *st, __isl_keep isl_schedule_node *band, const int *parallel,
                             int *reduced);

/* Whether a member of node or of a band below is parallel, plainly or once reductions'
 * accumulations are left out (a stencil that also sums its change). */
static int any_parallel(gpu_state *st, __isl_keep isl_schedule_node *node) {
  if (isl_schedule_node_get_type(node) == isl_schedule_node_band) {
    int n = isl_schedule_node_band_n_member(node), parallel[16], reduced[16];
    if (band_flags(st, node, parallel)) return 0;
    for (int k = 0; k < n; k++)
      if (parallel[k]) return 1;
    if (reduction_members(st, node, parallel, reduced)) return 1;
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

/* The product of the trip counts of band members [from, to). */
static double trips(gpu_state *st, __isl_keep isl_schedule_node *band, int from, int to) {
  double n = 1;
  for (int k = from; k < to; k++) {
    long lo, hi;
    if (sj_member_range(band, k, &lo, &hi)) st->failed = 1;
    n *= hi >= lo ? (double)(hi - lo + 1) : 0;
  }
  return n;
}

/* A rough count of the points of set: the product of the ranges of its dimensions, less
 * those its equalities determine (a diagonal of a cube counts as a line, not a cube). An
 * equality through an existential (t = 2e: every other step, as a swap of arrays leaves a
 * step's statements) determines nothing: the dimension counts whole. */
static double volume(__isl_keep isl_set *set) {
  int n = (int)isl_set_dim(set, isl_dim_set);
  isl_basic_set *hull = isl_basic_set_remove_divs(isl_set_affine_hull(isl_set_copy(set)));
  double v = 1;
  for (int d = n - 1; d >= 0 && hull; d--) {
    if (isl_basic_set_involves_dims(hull, isl_dim_set, d, 1) == isl_bool_true) {
      hull = isl_basic_set_project_out(hull, isl_dim_set, d, 1); /* d is a function of others */
      continue;
    }
    long lo, hi;
    if (sj_set_dim_range(set, d, &lo, &hi)) v = -1;
    if (v >= 0) v *= hi >= lo ? (double)(hi - lo + 1) : 0;
  }
  isl_basic_set_free(hull);
  return hull && v >= 0 ? v : -1;
}

static isl_stat add_volume(__isl_take isl_set *set, void *user) {
  double v = volume(set), *sum = user;
  isl_set_free(set);
  if (v < 0) return isl_stat_error;
  *sum += v;
  return isl_stat_ok;
}

/* Adds the modeled time of a kernel at node whose mapped loops have par points and which
 * launches threads threads: a launch per host iteration, the instances spread over the
 * threads that have work, and every thread's guards. */
static void add_cost(gpu_state *st, __isl_keep isl_schedule_node *node, double par,
                     double threads) {
  double vol = 0;
  isl_union_set *domain = isl_schedule_node_get_domain(node);
  if (isl_union_set_foreach_set(domain, add_volume, &vol) < 0) st->failed = 1;
  isl_union_set_free(domain);
  double launches = st->launches > 1 ? st->launches : 1, per_launch = vol / launches;
  double busy = par < GPU_THREADS ? par : GPU_THREADS;
  if (busy > per_launch) busy = per_launch;
  st->cost +=
      launches * (LAUNCH_COST + threads * IDLE_COST / GPU_THREADS) + vol / (busy > 1 ? busy : 1);
}

static void out_of_memory(gpu_state *st) {
  if (!st->err->status) sj_error_set(st->err, JIT_ERR_NOMEM, "out of memory");
  st->failed = 1;
}

/* NULL when out of memory (the mapping fails with JIT_ERR_NOMEM). */
static sj_kernel *new_kernel(gpu_state *st) {
  sj_kernel *k = calloc(1, sizeof *k);
  if (!k) {
    out_of_memory(st);
    return NULL;
  }
  k->tag = SJ_ID_KERNEL;
  k->id = st->plan->nkernels++;
  for (int d = 0; d < 3; d++) k->grid[d] = k->block[d] = 1;
  return k;
}

static __isl_give isl_schedule_node *single_thread(gpu_state *st,
                                                   __isl_take isl_schedule_node *node) {
  sj_kernel *k = new_kernel(st);
  if (!k) return node;
  snprintf(k->why, sizeof k->why, "no parallel loop: runs in one thread");
  sj_buf_printf(st->explain, "  kernel %d: grid 1x1x1, block 1x1x1: %s\n", k->id, k->why);
  add_cost(st, node, 1, 1);
  return sj_mark_kernel(node, k);
}

/* --- reductions in parallel (reassociation allowed) --- */

/* reduced[k]: member k of band is parallel once the accumulations of reductions are left
 * out, and only then. Where the band's plain parallel members already fill the GPU, none
 * is: a reduction in parallel costs shuffles and atomics. Returns how many there are. */
static int reduction_members(gpu_state *st, __isl_keep isl_schedule_node *band, const int *parallel,
                             int *reduced) {
  int n = isl_schedule_node_band_n_member(band), any = 0, others[16];
  for (int k = 0; k < n; k++) reduced[k] = 0;
  if (!st->nred || sj_band_parallel_reduced(st->m, band, st->red, st->nred, others)) return 0;
  double plain = trips(st, band, 0, 0);
  for (int k = 0; k < n; k++) {
    reduced[k] = others[k] && !parallel[k];
    any += reduced[k];
    if (parallel[k]) plain *= trips(st, band, k, k + 1);
  }
  if (plain >= GPU_THREADS) any = 0;
  for (int k = 0; k < n && !any; k++) reduced[k] = 0;
  return any;
}

/* Whether the statement of r has instances below node. */
static int below(__isl_keep isl_schedule_node *node, const sj_reduction *r) {
  isl_union_set *dom = isl_schedule_node_get_domain(node);
  isl_union_set *mine = isl_union_set_intersect(
      isl_union_set_copy(dom), isl_union_set_from_set(isl_set_copy(r->stmt->domain)));
  isl_bool empty = isl_union_set_is_empty(mine);
  isl_union_set_free(mine);
  isl_union_set_free(dom);
  return empty == isl_bool_false;
}

/* Whether the GPU combines r's element type and operation with one atomic: +, min and max
 * on 32- and 64-bit integers and floats, & | ^ on those integers; or, a constant set, with a
 * store of any type (every instance stores the same bits). */
static int atomic_kind(const sj_reduction *r) {
  sj_type t = r->stmt->body[r->body]->lhs->type;
  int wide = t == SJ_TY_INT || t == SJ_TY_UINT || t == SJ_TY_LONG || t == SJ_TY_ULONG ||
             t == SJ_TY_FLOAT || t == SJ_TY_DOUBLE;
  return (wide && r->op != SJ_RED_MUL) || r->op == SJ_RED_SET;
}

/* The reductions of the band (one per assignment) for its `reduce` mark, with the member x
 * that runs along the warp; NULL when they cannot run in parallel: one has no atomic, or
 * the lanes of a warp would not share its element. */
static sj_reduce *band_reductions(gpu_state *st, __isl_keep isl_schedule_node *band, int x) {
  sj_reduce *red = calloc(1, sizeof *red);
  if (!red) {
    out_of_memory(st);
    return NULL;
  }
  red->tag = SJ_ID_REDUCE;
  int ok = 1;
  for (int i = 0; i < st->nred && ok; i++) {
    const sj_reduction *r = &st->red[i];
    if (!below(band, r)) continue;
    int seen = 0;
    for (int j = 0; j < red->n; j++) seen |= red->r[j].stmt == r->stmt && red->r[j].body == r->body;
    if (seen) continue;
    int uniform = atomic_kind(r) ? sj_reduce_uniform(band, x, r) : 0;
    if (uniform < 0) st->failed = 1;
    ok = uniform == 1;
    sj_reduction *grown = realloc(red->r, (size_t)(red->n + 1) * sizeof *red->r);
    if (!grown) {
      out_of_memory(st);
      ok = 0;
      break;
    }
    red->r = grown;
    red->r[red->n++] = *r;
  }
  if (!ok || !red->n) {
    free(red->r);
    free(red);
    return NULL;
  }
  return red;
}

static void free_reduce(void *user) {
  sj_reduce *red = user;
  free(red->r);
  free(red);
}

/* Above the threads mark, two levels below node: a `reduce` mark that owns red. */
static __isl_give isl_schedule_node *mark_reduce(__isl_take isl_schedule_node *node,
                                                 sj_reduce *red) {
  isl_id *id = sj_id_owning(isl_schedule_node_get_ctx(node), "reduce", red, free_reduce);
  node = isl_schedule_node_child(isl_schedule_node_child(node, 0), 0);
  node = isl_schedule_node_insert_mark(node, id);
  return isl_schedule_node_parent(isl_schedule_node_parent(node));
}

static void explain_reduce(const sj_reduce *red, char *why, size_t size) {
  size_t len = strlen(why);
  len += (size_t)snprintf(why + len, size - len, "; reductions in parallel:");
  for (int i = 0; i < red->n && len < size; i++) {
    const sj_reduction *r = &red->r[i];
    len += (size_t)snprintf(why + len, size - len, " %s (%s)",
                            r->stmt->body[r->body]->lhs->sym->name, r->stmt->name);
  }
  if (len < size)
    snprintf(why + len, size - len,
             ": partials per thread, shfl in the warp, the block's warps combined in shared "
             "memory, an atomic per block");
}

/* Maps the band of nm parallel members: tiles of the band go to blocks, the points of a
 * tile to threads, ppt points a block width apart along x (coalesced), unrolled; isl
 * guards only the copies that may leave the domain. The tree becomes kernel mark - context
 * (id bounds) - filter (bind_points) - threads mark - [a sequence of the points' filters] -
 * the band's child. */
/* With reductions, x goes to a member they accumulate over (the innermost such, when the
 * coalesced one is not), so that a warp's lanes share each reduction's element. */
static void reduction_x(int nm, const int *reduced, int *dim) {
  int x = 0;
  while (dim[x] != 0) x++;
  if (reduced[x]) return;
  x = nm - 1;
  while (!reduced[x]) x--;
  dim[x] = 0;
  for (int k = nm - 1, d = 1; k >= 0; k--)
    if (k != x) dim[k] = d++;
}

/* reduced[k]: member k is parallel only as a reduction (NULL: none is). Returns NULL when
 * those reductions cannot run in parallel, leaving node as it was. */
static __isl_give isl_schedule_node *map_band(gpu_state *st, __isl_take isl_schedule_node *node,
                                              const int *reduced) {
  int nm = isl_schedule_node_band_n_member(node);
  if (nm < 1 || nm > 3) { /* no band: isl stopped by a watchdog (sched/gpu.c) */
    st->failed = 1;
    return node;
  }
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  int ppt, dim[3], x = 0;
  long lo[3] = {0, 0, 0}, hi[3], tile[3] = {1, 1, 1}, ext[3] = {1, 1, 1};
  for (int i = 0; i < nm; i++) dim[i] = nm - 1 - i; /* the innermost member runs along x */
  int rc = nm > 1 && !st->m->stencil ? sj_gpu_dims(st->m, node, nm, dim) : 0;
  if (rc == JIT_ERR_NOMEM) out_of_memory(st);
  if (rc) st->failed = 1;
  sj_reduce *red = NULL;
  if (reduced) {
    reduction_x(nm, reduced, dim);
    while (dim[x] != 0) x++;
    red = band_reductions(st, node, x);
    if (!red) return isl_schedule_node_free(node);
  }
  sj_kernel *k = new_kernel(st);
  if (!k) {
    if (red) free_reduce(red);
    return node;
  }
  for (int i = 0; i < nm; i++) {
    if (sj_member_range(node, i, &lo[i], &hi[i])) st->failed = 1;
    ext[dim[i]] = hi[i] >= lo[i] ? hi[i] - lo[i] + 1 : 1;
  }
  if (red)
    sj_gpu_block_shape_warp_x(nm, ext, k->block, &ppt);
  else
    sj_gpu_block_shape(nm, ext, k->block, &ppt);
  double par = 1;
  for (int i = 0; i < nm; i++) {
    int d = dim[i];
    long t = k->block[d];
    /* along x, tiles start on a multiple of the block width: aligned, fewer sectors */
    if (d == 0 && nm > 1) {
      lo[i] -= ((lo[i] % t) + t) % t;
      ext[0] = hi[i] >= lo[i] ? hi[i] - lo[i] + 1 : 1;
    }
    tile[i] = d == 0 ? t * ppt : t;
    long grid = (ext[d] + tile[i] - 1) / tile[i];
    if (grid > (long)st->max_grid[d]) {
      st->failed = 1;
      sj_error_set(st->err, JIT_ERR_DEVICE,
                   "the grid needs %ld blocks along %c, the device allows %u", grid, "xyz"[d],
                   st -> max_grid[d]);
    }
    k->grid[d] = (unsigned)grid;
    par *= (double)ext[d];
    sj_plan_add_tile(st->plan, tile[i]);
  }
  int points = ppt;
  while (dim[x] != 0) x++;
  double threads = 1;
  for (int d = 0; d < 3; d++) threads *= (double)k->grid[d] * k->block[d];
  add_cost(st, node, par, threads);
  node = sj_bind_points(node, nm, lo, tile, dim, k->block, points);
  node = isl_schedule_node_insert_context(
      node,
      sj_id_bounds(ctx, isl_schedule_node_get_schedule_depth(node), nm, dim, k->grid, k->block));
  if (red) node = mark_reduce(node, red);
  snprintf(k->why, sizeof k->why,
           "%d parallel loop%s (member %d of %d on x): %d point%s per thread along x, %u apart, "
           "unrolled",
           nm, nm > 1 ? "s" : "", x, nm, points, points > 1 ? "s" : "", k->block[0]);
  if (red) explain_reduce(red, k->why, sizeof k->why);
  sj_buf_printf(st->explain, "  kernel %d: grid %ux%ux%u, block %ux%ux%u: %s\n", k->id, k->grid[0],
                k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->why);
  return sj_mark_kernel(node, k);
}

static __isl_give isl_schedule_node *visit(void *user, __isl_take isl_schedule_node *node);

/* The child of the first `members` members of band runs on the host, as loops of `trips`. */
static __isl_give isl_schedule_node *host_loops(gpu_state *st, __isl_take isl_schedule_node *band,
                                                int members) {
  double outer = st->launches, n = trips(st, band, 0, members);
  st->launches = outer * n;
  sj_buf_printf(st->explain, "  host loop%s over %d member%s (%.0f iterations)\n",
                members > 1 ? "s" : "", members, members > 1 ? "s" : "", n);
  band = isl_schedule_node_parent(visit(st, isl_schedule_node_child(band, 0)));
  st->launches = outer;
  return band;
}

static __isl_give isl_schedule_node *visit(void *user, __isl_take isl_schedule_node *node) {
  gpu_state *st = user;
  enum isl_schedule_node_type type = isl_schedule_node_get_type(node);
  if (type == isl_schedule_node_leaf) return single_thread(st, node);
  if (type != isl_schedule_node_band) return sj_each_child(node, visit, st);
  int n = isl_schedule_node_band_n_member(node), p = 0, parallel[16], reduced[16];
  if (band_flags(st, node, parallel)) return node;
  int reductions = reduction_members(st, node, parallel, reduced);
  for (int k = 0; k < n; k++) parallel[k] |= reduced[k];
  while (p < n && !parallel[p]) p++;
  if (p == n && !any_parallel_below(st, node)) return single_thread(st, node);
  if (p == n) return host_loops(st, node, n); /* sequential here, parallel below */
  if (p > 0)                                  /* outer sequential members run on the host */
    return host_loops(st, isl_schedule_node_band_split(node, p), p);
  int q = 1;
  while (q < n && parallel[q]) q++;
  if (q < n) node = isl_schedule_node_band_split(node, q);
  if (q > 3) /* the outer parallel members beyond three launch from the host */
    return host_loops(st, isl_schedule_node_band_split(node, q - 3), q - 3);
  int mapped = 0;
  for (int k = 0; k < q; k++) mapped += reduced[k];
  if (reductions && mapped) {
    isl_schedule_node *done = map_band(st, isl_schedule_node_copy(node), reduced);
    if (done) {
      isl_schedule_node_free(node);
      return done;
    }
    /* as if there were no reductions: the members parallel without them */
    int nred = st->nred;
    st->nred = 0;
    node = visit(st, node);
    st->nred = nred;
    return node;
  }
  return map_band(st, node, NULL);
}

int sj_map_gpu(sj_model *m, __isl_take isl_schedule *schedule, int coincident,
               const unsigned max_grid[3], sj_plan *plan, double *cost, sj_error *err) {
  sj_buf explain = {0};
  memset(plan, 0, sizeof *plan);
  gpu_state st = {m, max_grid, plan, &explain, err, 0, coincident, 1, 0, NULL, 0};
  int rc = sj_reductions_find(m, &st.red, &st.nred);
  if (!rc && !m->reassociate) sj_reductions_exact(st.red, &st.nred);
  if (rc == JIT_ERR_NOMEM) out_of_memory(&st);
  if (rc) st.failed = 1;
  isl_schedule_node *root = isl_schedule_get_root(schedule);
  isl_schedule_free(schedule);
  if (m->nstmts) root = visit(&st, isl_schedule_node_child(root, 0));
  root = isl_schedule_node_root(root);
  plan->schedule = isl_schedule_node_get_schedule(root);
  isl_schedule_node_free(root);
  plan->nthreads = 1;
  plan->explain = sj_buf_take(&explain);
  *cost = st.cost;
  free(st.red);
  if (st.failed || !plan->schedule) {
    int status = err->status ? err->status : JIT_ERR_INTERNAL;
    if (!err->status) sj_error_set(err, status, "isl failed while mapping to the GPU");
    sj_plan_clear(plan);
    return status;
  }
  return 0;
}
