/* What GPU mappings share: kernel marks, block and thread ids as parameters with their
 * bounds in a context node, and the binding of a parallel band's points to them. */
#include "sched/sched.h"

#include <stdlib.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_set.h>
#include <isl/val.h>

static void free_kernel(void *user) {
  sj_kernel *k = user;
  for (int d = 0; d < 3; d++) isl_aff_free(k->first[d]);
  free(k->staged);
  free(k);
}

__isl_give isl_schedule_node *sj_mark_kernel(__isl_take isl_schedule_node *node, sj_kernel *k) {
  isl_id *id = sj_id_owning(isl_schedule_node_get_ctx(node), "kernel", k, free_kernel);
  return isl_schedule_node_insert_mark(node, id);
}

typedef struct coord_arg {
  int from_end; /* 1: the last coordinate */
  isl_union_pw_aff *res;
} coord_arg;

static isl_stat add_coordinate(__isl_take isl_set *set, void *user) {
  coord_arg *a = user;
  int pos = (int)isl_set_dim(set, isl_dim_set) - a->from_end;
  isl_aff *aff =
      isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(set)), isl_dim_set, pos);
  isl_set_free(set);
  a->res = isl_union_pw_aff_add_pw_aff(a->res, isl_pw_aff_from_aff(aff));
  return a->res ? isl_stat_ok : isl_stat_error;
}

__isl_give isl_union_pw_aff *sj_coordinate(__isl_keep isl_union_set *dom, int from_end) {
  coord_arg a = {from_end, isl_union_pw_aff_empty(isl_union_set_get_space(dom))};
  if (isl_union_set_foreach_set(dom, add_coordinate, &a) < 0) a.res = isl_union_pw_aff_free(a.res);
  return a.res;
}

__isl_give isl_union_set *sj_bound_to(__isl_take isl_union_pw_aff *v, long offset, long mod,
                                      __isl_take isl_id *id) {
  isl_ctx *ctx = isl_union_pw_aff_get_ctx(v);
  isl_union_set *dom = isl_union_pw_aff_domain(isl_union_pw_aff_copy(v));
  v = isl_union_pw_aff_sub(
      v, isl_union_pw_aff_val_on_domain(isl_union_set_copy(dom), isl_val_int_from_si(ctx, offset)));
  if (mod) v = isl_union_pw_aff_mod_val(v, isl_val_int_from_si(ctx, mod));
  v = isl_union_pw_aff_sub(v, isl_union_pw_aff_param_on_domain_id(dom, id));
  return isl_union_pw_aff_zero_union_set(v);
}

__isl_give isl_union_set *sj_bound_block(__isl_take isl_union_pw_aff *v, long lo,
                                         const sj_kernel *k, int dim) {
  isl_ctx *ctx = isl_union_pw_aff_get_ctx(v);
  if (k->first[dim]) {
    isl_id *first = sj_first_id(ctx, dim);
    isl_union_set *dom = isl_union_pw_aff_domain(isl_union_pw_aff_copy(v));
    v = isl_union_pw_aff_sub(v, isl_union_pw_aff_param_on_domain_id(dom, first));
    lo = 0;
  }
  return sj_bound_to(v, lo, 0, sj_map_id(ctx, 0, dim));
}

__isl_give isl_id *sj_first_id(isl_ctx *ctx, int dim) {
  char name[3] = {'o', (char)('0' + dim), 0};
  return isl_id_alloc(ctx, name, (void *)&sj_first_ids[dim]);
}

__isl_give isl_id *sj_map_id(isl_ctx *ctx, int thread, int dim) {
  char name[4] = {thread ? 't' : 'b', (char)('0' + dim), 0};
  return isl_id_alloc(ctx, name, (void *)(thread ? &sj_thread_ids[dim] : &sj_block_ids[dim]));
}

/* The context of a node at schedule depth depth (a set of its outer schedule dimensions) over
 * the ids of the n dimensions dim[]: 0 <= block id < grid (blocks: where set), and the thread
 * ids of the dimensions in the mask threads, 0 <= thread id < block (bounded: where set; else
 * only those of one thread, = 0). */
static __isl_give isl_set *id_bounds(isl_ctx *ctx, int depth, int n, const int *dim,
                                     const unsigned *grid, const unsigned *block, int blocks,
                                     int threads, int bounded) {
  int nparams = 0, pos[3][2];
  for (int k = 0; k < n; k++) {
    pos[k][0] = blocks ? nparams++ : -1;
    pos[k][1] = threads >> dim[k] & 1 ? nparams++ : -1;
  }
  isl_space *space = isl_space_set_alloc(ctx, nparams, depth);
  for (int k = 0; k < n; k++)
    for (int t = 0; t < 2; t++)
      if (pos[k][t] >= 0)
        space = isl_space_set_dim_id(space, isl_dim_param, pos[k][t], sj_map_id(ctx, t, dim[k]));
  isl_set *bounds = isl_set_universe(space);
  for (int k = 0; k < n; k++) {
    unsigned size[2] = {grid[dim[k]], block[dim[k]]};
    for (int t = 0; t < 2; t++) {
      if (pos[k][t] < 0 || (t && !bounded && size[1] > 1)) continue;
      bounds = isl_set_lower_bound_si(bounds, isl_dim_param, pos[k][t], 0);
      bounds = isl_set_upper_bound_si(bounds, isl_dim_param, pos[k][t], (long)size[t] - 1);
    }
  }
  return bounds;
}

__isl_give isl_set *sj_id_bounds(isl_ctx *ctx, int depth, int n, const int *dim,
                                 const unsigned *grid, const unsigned *block) {
  return id_bounds(ctx, depth, n, dim, grid, block, 1, 7, 1);
}

/* Whether the filter of node involves the thread id of dimension d (-1: isl failed). */
static int binds_thread(__isl_keep isl_schedule_node *node, int d) {
  isl_union_set *filter = isl_schedule_node_filter_get_filter(node);
  isl_id *id = sj_map_id(isl_schedule_node_get_ctx(node), 1, d);
  isl_set_list *sets = isl_union_set_get_set_list(filter);
  isl_size n = isl_set_list_n_set(sets);
  int found = n < 0 ? -1 : 0;
  for (int i = 0; i < n && !found; i++) {
    isl_set *set = isl_set_list_get_set(sets, i);
    int pos = isl_set_find_dim_by_id(set, isl_dim_param, id);
    isl_bool inv = pos < 0 ? isl_bool_false : isl_set_involves_dims(set, isl_dim_param, pos, 1);
    found = inv < 0 ? -1 : inv;
    isl_set_free(set);
  }
  isl_set_list_free(sets);
  isl_id_free(id);
  isl_union_set_free(filter);
  return found;
}

typedef struct thread_walk {
  const unsigned *block;
  int bound; /* bit d: a filter binds the thread id of dimension d */
} thread_walk;

/* Above a filter that binds thread ids of dimensions with more than one thread, a context that
 * bounds them. */
static __isl_give isl_schedule_node *bound_threads(__isl_take isl_schedule_node *node, void *user) {
  thread_walk *w = user;
  if (isl_schedule_node_get_type(node) != isl_schedule_node_filter) return node;
  int dim[3], n = 0, mask = 0;
  for (int d = 0; d < 3; d++) {
    int binds = binds_thread(node, d);
    if (binds < 0) return isl_schedule_node_free(node);
    w->bound |= binds << d;
    if (binds && w->block[d] > 1) dim[n++] = d, mask |= 1 << d;
  }
  if (!n) return node;
  unsigned grid[3] = {1, 1, 1};
  return isl_schedule_node_insert_context(
      node, id_bounds(isl_schedule_node_get_ctx(node), isl_schedule_node_get_schedule_depth(node),
                      n, dim, grid, w->block, 0, mask, 1));
}

__isl_give isl_schedule_node *sj_insert_kernel_context(__isl_take isl_schedule_node *node, int n,
                                                       const int *dim, const unsigned *grid,
                                                       const unsigned *block) {
  thread_walk w = {block, 0};
  int depth = isl_schedule_node_get_schedule_depth(node);
  node = isl_schedule_node_map_descendant_bottom_up(node, bound_threads, &w);
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  return isl_schedule_node_insert_context(
      node, id_bounds(ctx, depth, n, dim, grid, block, 1, w.bound, 0));
}

/* Replaces the parallel band by the binding of its points to blocks and threads: member k's
 * value v is lo + tile * block id + thread id (+ u times the block size along x, where each
 * thread takes `points` values: a sequence of a filter per u, which isl generates as it would
 * unroll a band over u, 15% faster, with no congruence). Equalities rather than tiling keep
 * isl's AST generation cheap. Returns the filter node in the band's place: filter - threads
 * mark - [sequence of the points' filters] - the band's child. */
__isl_give isl_schedule_node *sj_bind_points(__isl_take isl_schedule_node *band, int nm,
                                             const long *lo, const long *tile, const int *dim,
                                             const unsigned *block, int points) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(band);
  isl_multi_union_pw_aff *sched = isl_schedule_node_band_get_partial_schedule(band);
  isl_union_set *filter = isl_union_set_universe(isl_schedule_node_get_domain(band));
  isl_union_set_list *along = NULL;
  for (int k = 0; k < nm; k++) {
    isl_union_pw_aff *v = isl_multi_union_pw_aff_get_union_pw_aff(sched, k);
    isl_union_set *dom = isl_union_pw_aff_domain(isl_union_pw_aff_copy(v));
    isl_union_pw_aff *b =
        isl_union_pw_aff_param_on_domain_id(isl_union_set_copy(dom), sj_map_id(ctx, 0, dim[k]));
    isl_union_pw_aff *t =
        isl_union_pw_aff_param_on_domain_id(isl_union_set_copy(dom), sj_map_id(ctx, 1, dim[k]));
    isl_union_pw_aff *rel = isl_union_pw_aff_sub(
        isl_union_pw_aff_sub(v,
                             isl_union_pw_aff_val_on_domain(dom, isl_val_int_from_si(ctx, lo[k]))),
        isl_union_pw_aff_add(isl_union_pw_aff_scale_val(b, isl_val_int_from_si(ctx, tile[k])), t));
    if (dim[k] == 0 && points > 1) { /* rel = block size * u, 0 <= u < points: a filter each */
      along = isl_union_set_list_alloc(ctx, points);
      for (int u = 0; u < points; u++) {
        isl_union_pw_aff *at = isl_union_pw_aff_add(
            isl_union_pw_aff_copy(rel),
            isl_union_pw_aff_val_on_domain(isl_union_pw_aff_domain(isl_union_pw_aff_copy(rel)),
                                           isl_val_int_from_si(ctx, -(long)block[0] * u)));
        along = isl_union_set_list_add(along, isl_union_pw_aff_zero_union_set(at));
      }
      isl_union_pw_aff_free(rel);
    } else {
      filter = isl_union_set_intersect(filter, isl_union_pw_aff_zero_union_set(rel));
    }
  }
  isl_multi_union_pw_aff_free(sched);
  isl_schedule_node *node = isl_schedule_node_delete(band);
  if (along) node = isl_schedule_node_insert_sequence(node, along);
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, "threads", (void *)&sj_threads_tag));
  return isl_schedule_node_insert_filter(node, filter);
}
