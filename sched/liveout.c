/* Which values of a time-tiled kernel must reach global memory. A staged tile computes from
 * shared memory, so a value it writes is needed in global memory only when (a) an instance of
 * another tile (another block, or a later launch) reads it: an exact flow dependence whose
 * source and sink have different tile coordinates, or (b) it is the program's last write of
 * one of its elements: the caller sees the final array. Every other value is read only in its
 * tile, from shared memory, and its global store is dead.
 *
 * The exact dependences cost more than the rest of a heat-2d compile (84 ms against 110), so
 * the kernels use a subset of the dead instances found without them (sj_tile_local): an
 * element x writes is read, before it is written again, only at the memory-based distances up
 * to the first rewrite, dt; where x's element is rewritten dt steps later and those distances
 * stay in x's tile, no other tile reads x's value and it is not the last. The distances are a
 * handful of vectors, and the set they give is convex per color: a few bounds on a point's
 * place in a full tile, which the lowering mostly decides per unrolled copy
 * (astgen/live_ast.c, lower_expr.c). JIT_CHECK_TILES checks it against the exact dependences
 * (sj_tile_local_exact).
 *
 * Why not the model's conflicts for the distances: a double buffer's element is read by the
 * next step and overwritten two steps later; the conflicts also join it to every later read of
 * the element, across bands, which would keep every value live; bounding them by the first
 * rewrite keeps what the exact flow has. */
#include "sched/hybrid.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <isl/vertices.h>

/* The instances each of whose written elements a later instance writes again (exact output
 * dependences): not the last write of anything. Per written array: an output dependence from
 * x says only that some element of x is written again (fe_locals' statement writes A and C, C
 * at every step). */
static __isl_give isl_union_set *rewritten(const sj_model *m) {
  isl_union_set *again = isl_union_set_copy(m->domain);
  for (int i = 0; i < m->naccesses && again; i++) {
    const sj_access *acc = &m->accesses[i];
    if (!acc->is_write) continue;
    isl_union_map *same =
        isl_union_map_apply_range(isl_union_map_from_map(isl_map_copy(acc->rel)),
                                  isl_union_map_reverse(isl_union_map_copy(m->writes)));
    same = isl_union_map_intersect(same, isl_union_map_copy(m->dep_output));
    isl_union_set *stmt = isl_union_set_from_set(isl_set_copy(acc->stmt->domain));
    again = isl_union_set_subtract(again, isl_union_set_subtract(stmt, isl_union_map_domain(same)));
  }
  return isl_union_set_coalesce(again);
}

isl_bool sj_tile_local_exact(const sj_model *m, __isl_keep isl_union_map *tiles,
                             __isl_keep isl_union_map *back, __isl_keep isl_union_set *local) {
  if (!m->dep_flow || !m->dep_output) return isl_bool_error;
  /* S[x] -> its tile, for the instances of local */
  isl_union_map *own =
      isl_union_map_intersect_domain(isl_union_map_copy(back), isl_union_set_copy(local));
  own = isl_union_map_apply_range(isl_union_map_reverse(own), isl_union_map_copy(tiles));
  own = isl_union_map_intersect(own, isl_union_map_copy(tiles));
  isl_union_set *mine = isl_union_map_domain(isl_union_map_copy(own));
  /* (b) none of them writes an element last */
  isl_union_set *again = rewritten(m);
  isl_bool ok = isl_union_set_is_subset(mine, again);
  isl_union_set_free(again);
  /* (a) the tiles of their readers are their own */
  isl_union_map *reach = isl_union_map_intersect_domain(isl_union_map_copy(m->dep_flow), mine);
  reach = isl_union_map_apply_range(reach, isl_union_map_copy(tiles));
  if (ok == isl_bool_true) ok = isl_union_map_is_subset(reach, own);
  isl_union_map_free(reach);
  isl_union_map_free(own);
  return ok;
}

typedef struct shift_arg {
  isl_map *tiles, *inside; /* F -> [L, p, T, S..]; of it, where every reader stays */
  int npoints;
} shift_arg;

enum { SJ_LIVE_MAX_DISTANCES = 64 };

/* inside &= { F -> c : F + d in tile c } */
static isl_stat keep_reach(__isl_take isl_point *d, void *user) {
  shift_arg *a = user;
  if (++a->npoints > SJ_LIVE_MAX_DISTANCES) {
    isl_point_free(d);
    return isl_stat_error;
  }
  isl_space *space = isl_space_map_from_set(isl_space_domain(isl_map_get_space(a->tiles)));
  isl_multi_aff *plus = isl_multi_aff_identity(space);
  for (int k = 0; k < (int)isl_multi_aff_dim(plus, isl_dim_out); k++) {
    isl_val *v = isl_point_get_coordinate_val(d, isl_dim_set, k);
    isl_aff *aff = isl_multi_aff_get_aff(plus, k);
    plus = isl_multi_aff_set_aff(plus, k, isl_aff_add_constant_val(aff, v));
  }
  isl_point_free(d);
  isl_map *shifted = isl_map_preimage_domain_multi_aff(isl_map_copy(a->tiles), plus);
  a->inside = isl_map_intersect(a->inside, shifted);
  return a->inside ? isl_stat_ok : isl_stat_error;
}

/* Adds vertex v of a hull of integer points, an integer point itself, to the set *user. */
static isl_stat add_vertex(__isl_take isl_vertex *v, void *user) {
  isl_set **pts = user;
  isl_multi_aff *ma = isl_vertex_get_expr(v);
  isl_vertex_free(v);
  isl_point *pt = isl_point_zero(isl_set_get_space(*pts));
  int n = ma ? (int)isl_multi_aff_dim(ma, isl_dim_out) : -1, ok = n >= 0;
  for (int k = 0; k < n && ok; k++) {
    isl_aff *aff = isl_multi_aff_get_at(ma, k);
    isl_val *c = isl_aff_get_constant_val(aff);
    ok = isl_aff_is_cst(aff) == isl_bool_true && isl_val_is_int(c) == isl_bool_true;
    if (ok)
      pt = isl_point_set_coordinate_val(pt, isl_dim_set, k, c);
    else
      isl_val_free(c);
    isl_aff_free(aff);
  }
  isl_multi_aff_free(ma);
  if (!ok) {
    isl_point_free(pt);
    return isl_stat_error;
  }
  *pts = isl_set_union(*pts, isl_set_from_point(pt));
  return *pts ? isl_stat_ok : isl_stat_error;
}

/* Whether each tile of tiles (F -> tile) is convex: affine inequalities on F for a fixed tile,
 * where tiles has pieces without local variables whose tiles are disjoint (one per phase). */
static int convex_tiles(__isl_keep isl_map *tiles) {
  isl_basic_map_list *list = isl_map_get_basic_map_list(tiles);
  int n = list ? (int)isl_basic_map_list_size(list) : 0, convex = n > 0;
  isl_set *seen = isl_set_empty(isl_space_range(isl_map_get_space(tiles)));
  for (int i = 0; i < n && convex; i++) {
    isl_basic_map *piece = isl_basic_map_list_get_at(list, i);
    convex = isl_basic_map_dim(piece, isl_dim_div) == 0;
    isl_set *mine = isl_set_from_basic_set(isl_basic_map_range(piece));
    convex = convex && isl_set_is_disjoint(seen, mine) == isl_bool_true;
    seen = isl_set_union(seen, mine);
  }
  isl_set_free(seen);
  isl_basic_map_list_free(list);
  return convex;
}

/* The distances whose shifts of the tiles keep_reach needs. Where every tile is convex, F + d
 * lies in F's tile for every d of reach if it does for the vertices of reach's hull, of which d
 * is a convex combination: those vertices (8 of the 27 distances of a 3x3x3 stencil), else
 * every point of reach. A hull with a stride (statements folded into every other step) has
 * local variables, which isl's vertices do not take (an isl error, and the compile failed):
 * every point too. */
static __isl_give isl_set *reach_points(__isl_take isl_set *reach, __isl_keep isl_map *tiles) {
  if (!convex_tiles(tiles)) return reach;
  isl_basic_set *hull = isl_set_convex_hull(isl_set_copy(reach));
  if (hull && isl_basic_set_dim(hull, isl_dim_div) != 0) {
    isl_basic_set_free(hull);
    return reach;
  }
  isl_vertices *v = isl_basic_set_compute_vertices(hull);
  isl_basic_set_free(hull);
  isl_set *pts = isl_set_empty(isl_set_get_space(reach));
  if (!v || isl_vertices_foreach_vertex(v, add_vertex, &pts) < 0) pts = isl_set_free(pts);
  isl_vertices_free(v);
  if (!pts) return reach;
  isl_set_free(reach);
  return pts;
}

__isl_give isl_map *sj_tiles_keeping(__isl_keep isl_map *tiles, __isl_keep isl_set *reach) {
  if (isl_set_is_bounded(reach) != isl_bool_true) return NULL;
  shift_arg s = {tiles, isl_map_copy(tiles), 0};
  isl_set *points = reach_points(isl_set_copy(reach), tiles);
  if (isl_set_foreach_point(points, keep_reach, &s) < 0) s.inside = isl_map_free(s.inside);
  isl_set_free(points);
  return s.inside;
}

typedef struct tiled_arg {
  isl_union_set *res;
} tiled_arg;

/* S[x] -> c as the tiled instances S[x, c] */
static isl_stat add_tiled(__isl_take isl_map *map, void *user) {
  tiled_arg *a = user;
  isl_id *id = isl_map_get_tuple_id(map, isl_dim_in);
  isl_set *set = isl_set_set_tuple_id(isl_set_flatten(isl_map_wrap(map)), id);
  a->res = isl_union_set_add_set(a->res, set);
  return a->res ? isl_stat_ok : isl_stat_error;
}

/* The function map, as a map on the whole space of its domain, or NULL where it is not one
 * quasi-affine piece. */
static __isl_give isl_map *on_space(__isl_take isl_map *map) {
  isl_multi_aff *ma = sj_one_piece(isl_pw_multi_aff_from_map(map));
  return ma ? isl_map_from_multi_aff(ma) : NULL;
}

static __isl_give isl_map *fold_of(const sj_pstmt *st, __isl_keep isl_union_map *fold,
                                   __isl_keep isl_space *fspace) {
  isl_space *space =
      isl_space_map_from_domain_and_range(isl_set_get_space(st->domain), isl_space_copy(fspace));
  return on_space(isl_union_map_extract_map(fold, space));
}

/* Whether statement st runs at only some of the steps of its range (a nest a parity of the
 * step, as arrays swapped by pointers have: sched/stencil.c). */
static int skips_steps(const sj_pstmt *st) {
  isl_set *steps = isl_set_project_out(isl_set_copy(st->domain), isl_dim_set, 1,
                                       isl_set_dim(st->domain, isl_dim_set) - 1);
  isl_set *hull = isl_set_remove_divs(isl_set_copy(steps));
  isl_bool same = isl_set_is_equal(steps, hull);
  isl_set_free(steps);
  isl_set_free(hull);
  return same == isl_bool_false;
}

/* An access folded (F(x) -> element): as a map on the whole space of its statement, which
 * keeps the distances a handful of vectors; within the statement's instances where it skips
 * steps, since a nest of one parity writes an element two steps apart and the other's reads it
 * at the step between, where their whole spaces would have them do both at every step (and
 * keep every value live). NULL where the access or the fold is not one piece. */
static __isl_give isl_map *folded_access(const sj_access *acc, __isl_keep isl_union_map *fold,
                                         __isl_keep isl_space *fspace) {
  int within = skips_steps(acc->stmt);
  isl_map *a = within ? isl_map_copy(acc->rel) : on_space(isl_map_copy(acc->rel));
  isl_map *f = fold_of(acc->stmt, fold, fspace);
  if (!a || !f) {
    isl_map_free(a), isl_map_free(f);
    return NULL;
  }
  return isl_map_apply_domain(a, f);
}

/* The folded distances F'(y) - F(x) with dt > 0 of the instances x of the write and y of the
 * other access (both folded_access) that access the same element (memory-based: a superset of
 * the exact flow, which costs far more). */
static __isl_give isl_set *distances(__isl_keep isl_map *write, __isl_take isl_map *other) {
  isl_map *pairs = isl_map_apply_range(isl_map_copy(write), isl_map_reverse(other));
  return isl_set_lower_bound_si(isl_map_deltas(pairs), isl_dim_set, 0, 1);
}

/* x -> y with y's folded time that of x plus dt (tau: each instance's folded time). */
static __isl_give isl_union_map *later_by(__isl_keep isl_union_map *tau, long dt) {
  isl_multi_aff *plus = isl_multi_aff_identity(
      isl_space_map_from_set(isl_space_set_alloc(isl_union_map_get_ctx(tau), 0, 1)));
  plus =
      isl_multi_aff_set_aff(plus, 0, isl_aff_add_constant_si(isl_multi_aff_get_aff(plus, 0), dt));
  isl_union_map *res = isl_union_map_apply_range(
      isl_union_map_copy(tau), isl_union_map_from_map(isl_map_from_multi_aff(plus)));
  return isl_union_map_apply_range(res, isl_union_map_reverse(isl_union_map_copy(tau)));
}

typedef struct local_arg {
  const sj_model *m;
  isl_union_map *fold, *tau;
  isl_space *fspace;
  isl_set *reach;       /* folded distances to every reader of a value before it is rewritten */
  isl_union_set *again; /* instances each of whose elements is written again, soon enough */
} local_arg;

/* Adds what write access w tells to a: its readers' distances up to the first rewrite of its
 * element, and the instances of its statement where that rewrite happens. -1 where the
 * distances are not one piece each. */
static int add_write(local_arg *a, const sj_access *w) {
  const sj_model *m = a->m;
  isl_set *rewrite = isl_set_empty(isl_space_copy(a->fspace));
  isl_set *read = isl_set_empty(isl_space_copy(a->fspace));
  isl_map *wf = folded_access(w, a->fold, a->fspace);
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *o = &m->accesses[i];
    if (o->ref->sym->id != w->ref->sym->id) continue;
    isl_map *of = wf ? folded_access(o, a->fold, a->fspace) : NULL;
    isl_set *d = of ? distances(wf, of) : NULL;
    if (!d) {
      isl_map_free(wf);
      isl_set_free(rewrite), isl_set_free(read);
      return -1;
    }
    if (o->is_write)
      rewrite = isl_set_union(rewrite, d);
    else
      read = isl_set_union(read, d);
  }
  isl_union_set *stmt = isl_union_set_from_set(isl_set_copy(w->stmt->domain));
  isl_bool never = isl_set_is_empty(rewrite);
  long first = 0;
  if (never == isl_bool_false) { /* the earliest rewrite, dt = first */
    isl_val *v = isl_set_dim_min_val(isl_set_copy(rewrite), 0);
    never = isl_val_is_int(v) ? isl_bool_false : isl_bool_true;
    first = never ? 0 : isl_val_get_num_si(v);
    isl_val_free(v);
  }
  isl_set_free(rewrite);
  isl_map_free(wf);
  if (never != isl_bool_false) { /* the last write of its elements: every instance stores */
    isl_set_free(read);
    a->again = isl_union_set_subtract(a->again, stmt);
    return 0;
  }
  /* a value is read only before its element is written again: by time first */
  a->reach = isl_set_union(a->reach, isl_set_upper_bound_si(read, isl_dim_set, 0, first));
  /* where an instance writes the same element at time first */
  isl_union_map *same =
      isl_union_map_apply_range(isl_union_map_from_map(isl_map_copy(w->rel)),
                                isl_union_map_reverse(isl_union_map_copy(m->writes)));
  same = isl_union_map_intersect(same, later_by(a->tau, first));
  a->again =
      isl_union_set_subtract(a->again, isl_union_set_subtract(stmt, isl_union_map_domain(same)));
  return 0;
}

__isl_give isl_union_set *sj_tile_local(const sj_model *m, __isl_keep isl_union_map *fold,
                                        __isl_keep isl_map *ftiles) {
  isl_space *fspace = isl_space_domain(isl_map_get_space(ftiles));
  isl_multi_aff *t0 = isl_multi_aff_project_out_map(
      isl_space_copy(fspace), isl_dim_set, 1, (unsigned)isl_space_dim(fspace, isl_dim_set) - 1);
  isl_union_map *tau = isl_union_map_apply_range(
      isl_union_map_copy(fold), isl_union_map_from_map(isl_map_from_multi_aff(t0)));
  local_arg a = {
      m, fold, tau, fspace, isl_set_empty(isl_space_copy(fspace)), isl_union_set_copy(m->domain)};
  int rc = 0;
  for (int i = 0; i < m->naccesses && !rc; i++)
    if (m->accesses[i].is_write) rc = add_write(&a, &m->accesses[i]);
  isl_union_map_free(tau);
  isl_space_free(fspace);
  isl_map *inside = rc ? NULL : sj_tiles_keeping(ftiles, a.reach);
  isl_set_free(a.reach);
  if (!inside) {
    isl_union_set_free(a.again);
    return NULL;
  }
  /* where a later instance writes the element again, as tiled instances */
  isl_union_map *kept =
      isl_union_map_apply_range(isl_union_map_copy(fold), isl_union_map_from_map(inside));
  kept = isl_union_map_intersect_domain(kept, isl_union_set_coalesce(a.again));
  tiled_arg t = {isl_union_set_empty(isl_union_map_get_space(kept))};
  if (isl_union_map_foreach_map(kept, add_tiled, &t) < 0) t.res = isl_union_set_free(t.res);
  isl_union_map_free(kept);
  return isl_union_set_coalesce(t.res);
}

int sj_live_out_enabled(void) {
  const char *v = getenv("JIT_LIVEOUT");
  return !v || strcmp(v, "0") != 0;
}

static void live_free(void *user) {
  sj_live *l = user;
  isl_union_set_free(l->local);
  free(l);
}

__isl_give isl_schedule_node *sj_live_mark(__isl_take isl_schedule_node *node,
                                           __isl_take isl_union_set *local) {
  sj_live *l = malloc(sizeof *l);
  if (!l) abort();
  *l = (sj_live){SJ_ID_LIVE, local};
  isl_id *id = sj_id_owning(isl_schedule_node_get_ctx(node), "live_out", l, live_free);
  return isl_schedule_node_insert_mark(node, id);
}
