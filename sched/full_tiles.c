/* Full tiles of the time-tiled GPU schedules (thesis §6 and ch. 10): the tiles all of whose
 * points are instances. Their code has loops of constant trip counts and no guards, which the
 * lowering unrolls (astgen/lower.c); partial tiles run the general code.
 *
 * A tile is full when it lies inside the box of the folded instances along the dimensions
 * that are loops in its code: along time, the union of the statements' folded steps; along
 * space, what every statement with all the space loops runs (fdtd-2d's boundary row, with
 * fewer loops, keeps its guards). The other dimensions keep their guards in the full tiles'
 * code: a tile's steps cut by the first or last step are a guard per step, a dimension bound
 * to the thread ids a guard per thread and step, each the same for every point of the step
 * (and the lowering unrolls the steps with a guard each). The stencils' domains are
 * boxes, so a tile lies in them exactly when its extent along each dimension does; the tiles
 * of a color are translates of one shape, so each extent is affine in the tile coordinates
 * and the test costs a parametric minimum per dimension, not a projection of the tiles.
 *
 * Why not isl's `isolate` option on the band of a tile's steps: the AST generator then builds
 * the code of the partial tiles on the instances minus the full tiles, a union of pieces with
 * the block ids as parameters, and jacobi-2d's AST took 6.6 times as long (458 against 69 ms).
 * Instead the kernel holds two versions of the steps (sj_full_versions): one for the full
 * tiles, one for every tile, and the block takes the first when its tile is full, the second
 * otherwise. Each is as cheap to generate as the kernel without them. */
#include "sched/hybrid.h"

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

int sj_folded_box(const sj_model *m, __isl_keep isl_union_map *fold, int n, long *lo, long *hi) {
  int depth = n + 2, any = 0;
  long tlo = 0, thi = -1;
  for (int i = 0; i < m->nstmts; i++) {
    isl_union_set *one = isl_union_set_from_set(isl_set_copy(m->stmts[i]->domain));
    one = isl_union_set_apply(one, isl_union_map_copy(fold));
    isl_bool none = isl_union_set_is_empty(one);
    if (none != isl_bool_false) { /* no instances (or isl failed): nothing to bound */
      isl_union_set_free(one);
      if (none < 0) return -1;
      continue;
    }
    isl_set *f = isl_set_from_union_set(one);
    int whole = m->stmts[i]->depth == depth;
    for (int d = 0; d < depth; d++) {
      long l, h;
      if (sj_set_dim_range(f, d, &l, &h)) {
        isl_set_free(f);
        return -1;
      }
      if (d == 0) { /* the union of the steps */
        tlo = thi < tlo || l < tlo ? l : tlo;
        thi = h > thi ? h : thi;
      } else if (whole) { /* what every statement runs */
        lo[d] = any && lo[d] > l ? lo[d] : l;
        hi[d] = any && hi[d] < h ? hi[d] : h;
      }
    }
    any |= whole;
    isl_set_free(f);
  }
  lo[0] = tlo, hi[0] = thi;
  return any && tlo <= thi ? 0 : -1;
}

__isl_give isl_set *sj_full_tiles(__isl_keep isl_map *tiles, int n, const long *lo, const long *hi,
                                  unsigned dims) {
  isl_map *of = isl_map_reverse(isl_map_copy(tiles)); /* tile -> its points */
  isl_set *full = isl_map_domain(isl_map_copy(of));
  for (int d = 0; d < n + 2 && full; d++) {
    isl_pw_aff *first = isl_map_dim_min(isl_map_copy(of), d);
    isl_pw_aff *last = isl_map_dim_max(isl_map_copy(of), d);
    isl_set *dom = isl_pw_aff_domain(isl_pw_aff_copy(first));
    isl_ctx *ctx = isl_set_get_ctx(dom);
    isl_pw_aff *blo = isl_pw_aff_val_on_domain(isl_set_copy(dom), isl_val_int_from_si(ctx, lo[d]));
    isl_pw_aff *bhi = isl_pw_aff_val_on_domain(dom, isl_val_int_from_si(ctx, hi[d]));
    if (dims >> d & 1) { /* inside the box */
      full = isl_set_intersect(full, isl_pw_aff_ge_set(first, blo));
      full = isl_set_intersect(full, isl_pw_aff_le_set(last, bhi));
    } else { /* meeting it: a tile with instances */
      full = isl_set_intersect(full, isl_pw_aff_le_set(first, bhi));
      full = isl_set_intersect(full, isl_pw_aff_ge_set(last, blo));
    }
  }
  isl_map_free(of);
  return isl_set_coalesce(full);
}

typedef struct full_arg {
  isl_set *full; /* [L, color, T, S0, .., Sn] */
  int n;
  isl_union_set *res;
} full_arg;

/* The instances of set's space whose tile coordinates, the last n + 4, are those of a full
 * tile. */
static isl_stat add_full(__isl_take isl_set *set, void *user) {
  full_arg *a = user;
  isl_space *space = isl_set_get_space(set);
  int dims = (int)isl_space_dim(space, isl_dim_set);
  isl_multi_aff *c = isl_multi_aff_project_out_map(space, isl_dim_set, 0, dims - (a->n + 4));
  c = isl_multi_aff_reset_tuple_id(c, isl_dim_out);
  isl_set_free(set);
  a->res = isl_union_set_add_set(a->res, isl_set_preimage_multi_aff(isl_set_copy(a->full), c));
  return a->res ? isl_stat_ok : isl_stat_error;
}

__isl_give isl_union_set *sj_full_filter(__isl_keep isl_set *full, __isl_keep isl_union_set *dom,
                                         int n) {
  full_arg a = {full, n, isl_union_set_empty(isl_union_set_get_space(dom))};
  if (isl_union_set_foreach_set(dom, add_full, &a) < 0) a.res = isl_union_set_free(a.res);
  return a.res;
}

__isl_give isl_schedule_node *sj_full_versions(__isl_take isl_schedule_node *node,
                                               __isl_take isl_union_set *full,
                                               __isl_take isl_union_set *all) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  isl_union_set_list *versions = isl_union_set_list_from_union_set(full);
  node = isl_schedule_node_insert_sequence(node, isl_union_set_list_add(versions, all));
  for (int v = 0; v < 2; v++) {
    node = isl_schedule_node_child(isl_schedule_node_child(node, v), 0);
    node = isl_schedule_node_insert_mark(
        node, isl_id_alloc(ctx, v ? "any_tile" : "full_tile", (void *)&sj_version_ids[!v]));
    node = isl_schedule_node_parent(isl_schedule_node_parent(node));
  }
  node = isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, "full_tiles", (void *)&sj_full_tag));
  return isl_schedule_node_child(node, 0);
}
