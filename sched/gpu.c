/* The untiled GPU schedule of a kernel: which tree is mapped. A kernel in stencil form keeps the
 * order of the C function (one time step per launch: every space loop is parallel, which
 * nothing but time tiling improves), unless its dependences join only instances of the
 * same space point (a matrix product accumulated with k outermost): then the time loop can
 * go inside. Those and the other nests are also scheduled by isl's scheduler
 * (sched/reorder.c); every tree is mapped and the one whose kernels the time model of
 * sched/baseline.c finds fastest is kept, the C order on a tie. */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>

#include "base/buf.h"

/* Whether the conflicts of accesses a and b (the same array) join only instances that order
 * maps to the same point below the time loop (order NULL: the identity, whose applications
 * are a third of this test). */
static isl_bool pair_pointwise(__isl_keep isl_union_map *order, const sj_access *a,
                               const sj_access *b) {
  isl_space *sa = isl_map_get_space(a->rel), *sb = isl_map_get_space(b->rel);
  isl_bool array = isl_space_tuple_is_equal(sa, isl_dim_out, sb, isl_dim_out);
  isl_space_free(sa);
  isl_space_free(sb);
  if (array != isl_bool_true) /* other arrays: no conflict */
    return array < 0 ? isl_bool_error : isl_bool_true;
  isl_map *c = isl_map_apply_range(isl_map_copy(a->rel), isl_map_reverse(isl_map_copy(b->rel)));
  isl_union_map *u = isl_union_map_from_map(c);
  if (order) {
    u = isl_union_map_apply_domain(u, isl_union_map_copy(order));
    u = isl_union_map_apply_range(u, isl_union_map_copy(order));
  }
  isl_union_set *deltas = isl_union_map_deltas(u);
  isl_size n = isl_union_set_n_set(deltas);
  isl_bool same = n < 0 ? isl_bool_error : n > 1 ? isl_bool_false : isl_bool_true;
  if (n == 1) {
    isl_set *d = isl_set_from_union_set(isl_union_set_copy(deltas));
    int dims = (int)isl_set_dim(d, isl_dim_set);
    isl_set *zero = isl_set_universe(isl_set_get_space(d));
    for (int k = 1; k < dims; k++) zero = isl_set_fix_si(zero, isl_dim_set, k, 0);
    same = isl_set_is_subset(d, zero);
    isl_set_free(d);
    isl_set_free(zero);
  }
  isl_union_set_free(deltas);
  return same;
}

/* Whether order, of one statement, maps each instance to its own iterators, in order. */
static isl_bool identity(__isl_keep isl_union_map *order) {
  if (isl_union_map_n_map(order) != 1) return isl_bool_false;
  isl_map *map = isl_map_from_union_map(isl_union_map_copy(order));
  isl_map *id = isl_map_identity(isl_space_map_from_set(isl_space_domain(isl_map_get_space(map))));
  id = isl_map_reset_tuple_id(id, isl_dim_out);
  id = isl_map_intersect_domain(id, isl_map_domain(isl_map_copy(map)));
  isl_bool same = isl_map_plain_is_equal(id, map);
  isl_map_free(id);
  isl_map_free(map);
  return same;
}

/* Whether every conflict of the model joins instances that the C order maps to the same
 * point below the time loop (only the time loop separates them). Pair by pair of accesses,
 * writes first: the first pair that moves in space settles it (a stencil's first
 * neighbour), where the whole conflict relation cost a tenth of the compile. */
static isl_bool pointwise(sj_model *m) {
  if (m->nstmts > SJ_REORDER_MAX_STMTS) return isl_bool_false;
  isl_union_map *order = isl_schedule_get_map(m->original);
  isl_bool same = order ? isl_bool_true : isl_bool_error;
  if (m->nstmts == 1 && identity(order) == isl_bool_true) order = isl_union_map_free(order);
  for (int i = 0; i < m->naccesses && same == isl_bool_true; i++) {
    const sj_access *w = &m->accesses[i];
    for (int j = 0; w->is_write && j < m->naccesses && same == isl_bool_true; j++) {
      const sj_access *o = &m->accesses[j];
      if (!o->is_write || j >= i) same = pair_pointwise(order, w, o);
    }
  }
  isl_union_map_free(order);
  return same;
}

/* Appends the reductions found to the explanation: in exact mode floating-point ones kept in
 * order; integer ones, and all with reassociation allowed, in parallel where a kernel's line
 * says so. */
static void explain_reductions(const sj_model *m, sj_buf *why) {
  sj_buf list = {0};
  if (sj_reductions_explain(m, &list) == 0 && list.len)
    sj_buf_printf(why,
                  m->reassociate ? "  reductions (reassociation allowed: in parallel where a "
                                   "kernel line says so, else in the C order): %s\n"
                                 : "  reductions (floating-point ones in the C order, not "
                                   "reassociated; integer ones and max norms, the same in any "
                                   "order, in parallel where a kernel line says so): %s\n",
                  list.data);
  sj_buf_free(&list);
}

/* The box of the places of a launch's statements along each of the n + 1 place dimensions. */
typedef struct place_box {
  long lo[SJ_PLACE_MAX], hi[SJ_PLACE_MAX];
} place_box;
static const place_box no_places = {{1}, {0}}; /* lo[0] > hi[0] */

/* Widens box b (empty where b->lo[0] > b->hi[0]) by the places of s. -1 where isl fails. */
static int widen_box(const sj_model *m, const sj_pstmt *s, __isl_keep isl_multi_aff *at,
                     place_box *b) {
  int n = m->max_depth - 2, empty = b->lo[0] > b->hi[0];
  isl_set *img =
      isl_set_apply(isl_set_copy(s->domain), isl_map_from_multi_aff(isl_multi_aff_copy(at)));
  int rc = img ? 0 : -1;
  for (int f = 0; f <= n && !rc; f++) {
    long lo, hi;
    rc = sj_set_dim_range(img, f, &lo, &hi);
    if (rc || hi < lo) break; /* no instance at these sizes: the box stays as it is */
    if (empty || lo < b->lo[f]) b->lo[f] = lo;
    if (empty || hi > b->hi[f]) b->hi[f] = hi;
  }
  isl_set_free(img);
  return rc;
}

static double box_volume(const place_box *b, int n) {
  double v = 1;
  for (int f = 0; f <= n; f++) v *= b->hi[f] >= b->lo[f] ? (double)(b->hi[f] - b->lo[f] + 1) : 0;
  return v;
}

/* Whether statements a and b run in one thread at a place: those of one loop nest at one place
 * (statements that share the locals of an iteration are among them). */
static int same_group(const sj_model *m, const sj_pstmt *a, const sj_pstmt *b) {
  if (a->depth != b->depth) return 0;
  for (int j = 1; j < a->depth; j++)
    if (a->iters[j] != b->iters[j]) return 0;
  sj_place pa, pb;
  int n = m->max_depth - 2;
  return !sj_place_of(m, a, n, &pa) && !sj_place_of(m, b, n, &pb) && !memcmp(&pa, &pb, sizeof pa);
}

/* The places of launch l's statements packed: each group's (same_group) moved to the innermost
 * dimensions, from 0, without the dimensions along which the group has one place; where the
 * launch's box is more than twice the box that packs them into (a stencil's faces or sides
 * alone: threads over the box would be mostly idle; a cube's faces take one plane, a square's
 * four sides one row). Else NULL, and the launch runs over its box. Groups then share places,
 * as the launch allows: its statements touch nothing in common in a step. */
static __isl_give isl_union_pw_multi_aff *packed_places(const sj_model *m, const sj_stencil *st,
                                                        int l, isl_multi_aff **at) {
  int n = m->max_depth - 2, nstmts = m->nstmts;
  place_box all = no_places, group[nstmts];
  long extent[SJ_PLACE_MAX] = {0};
  int leader[nstmts];
  for (int i = 0; i < nstmts; i++) {
    const sj_pstmt *s = m->stmts[i];
    leader[i] = -1;
    if (st->launch[s->id] != l) continue;
    leader[i] = i;
    for (int j = 0; j < i && leader[i] == i; j++)
      if (leader[j] == j && same_group(m, m->stmts[j], s)) leader[i] = j;
    if (leader[i] == i) group[i] = no_places;
    if (widen_box(m, s, at[i], &group[leader[i]]) || widen_box(m, s, at[i], &all)) return NULL;
  }
  for (int i = 0; i < nstmts; i++) {
    if (leader[i] != i) continue;
    for (int f = n, g = n; f >= 0; f--) {
      long e = group[i].hi[f] - group[i].lo[f] + 1;
      if (e > 1 && e > extent[g]) extent[g] = e;
      g -= e > 1;
    }
  }
  double inner = 1;
  for (int f = 0; f <= n; f++) inner *= extent[f] > 1 ? (double)extent[f] : 1;
  if (box_volume(&all, n) <= 2 * inner) return NULL;
  isl_union_pw_multi_aff *out = NULL;
  for (int i = 0; i < nstmts; i++) {
    if (leader[i] < 0) continue;
    const place_box *b = &group[leader[i]];
    isl_multi_aff *moved = isl_multi_aff_zero(isl_multi_aff_get_space(at[i]));
    for (int f = n, g = n; f >= 0; f--)
      if (b->hi[f] > b->lo[f])
        moved = isl_multi_aff_set_aff(
            moved, g--, isl_aff_add_constant_si(isl_multi_aff_get_aff(at[i], f), -b->lo[f]));
    isl_union_pw_multi_aff *one = isl_union_pw_multi_aff_from_multi_aff(moved);
    out = out ? isl_union_pw_multi_aff_union_add(out, one) : one;
  }
  return out;
}

/* The per-step tree of a stencil whose nests share launches (sj_stencil.launch): the time loop,
 * then the launches of a step in sequence, each a band over the places of its statements
 * (sj_place_aff, or packed_places), where the C order has a band per nest (a boundary's single
 * points go with the stencil's launch; fdtd-2d's updates of ey and ex share one). The nests of
 * a launch touch nothing in common in a step, so their instances at one place run in any order.
 * NULL where isl fails. */
static __isl_give isl_schedule *launch_tree(const sj_model *m, const sj_stencil *st,
                                            sj_buf *packed) {
  isl_union_set_list *filters = isl_union_set_list_alloc(m->ctx, st->launches);
  isl_multi_aff *at[m->nstmts + 1];
  for (int i = 0; i < m->nstmts; i++) at[i] = sj_place_aff(m, m->stmts[i], m->max_depth - 2);
  isl_union_pw_multi_aff *place[st->launches];
  for (int l = 0; l < st->launches; l++) {
    isl_union_set *filter = isl_union_set_empty(isl_union_set_get_space(m->domain));
    place[l] = packed_places(m, st, l, at);
    int moved = place[l] != NULL;
    if (moved) sj_buf_printf(packed, "%s%d", packed->len ? ", " : "", l);
    for (int i = 0; i < m->nstmts; i++) {
      const sj_pstmt *s = m->stmts[i];
      if (st->launch[s->id] != l) continue;
      filter = isl_union_set_add_set(filter, isl_set_copy(s->domain));
      if (moved) continue;
      isl_union_pw_multi_aff *one =
          isl_union_pw_multi_aff_from_multi_aff(isl_multi_aff_copy(at[i]));
      place[l] = place[l] ? isl_union_pw_multi_aff_union_add(place[l], one) : one;
    }
    filters = isl_union_set_list_add(filters, filter);
  }
  isl_schedule_node *root = isl_schedule_get_root(m->original);
  isl_schedule_node *time = isl_schedule_node_child(root, 0);
  isl_multi_union_pw_aff *t = isl_schedule_node_band_get_partial_schedule(time);
  isl_schedule_node_free(time);
  t = isl_multi_union_pw_aff_drop_dims(t, isl_dim_set, 1, isl_multi_union_pw_aff_size(t) - 1);
  for (int i = 0; i < m->nstmts; i++) isl_multi_aff_free(at[i]);
  isl_schedule_node *node =
      isl_schedule_node_child(isl_schedule_node_from_domain(isl_union_set_copy(m->domain)), 0);
  node = isl_schedule_node_child(isl_schedule_node_insert_partial_schedule(node, t), 0);
  node = isl_schedule_node_insert_sequence(node, filters);
  for (int l = 0; l < st->launches; l++) {
    isl_multi_union_pw_aff *band = isl_multi_union_pw_aff_from_union_pw_multi_aff(place[l]);
    node = isl_schedule_node_child(node, l);
    node = isl_schedule_node_insert_partial_schedule(isl_schedule_node_child(node, 0), band);
    node = isl_schedule_node_parent(isl_schedule_node_parent(node));
  }
  isl_schedule *tree = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  return tree;
}

int sj_schedule_untiled(sj_model *m, const sj_stencil *st, const unsigned max_grid[3],
                        sj_plan *plan, sj_error *err) {
  sj_buf why = {0}, packed = {0};
  double cost;
  isl_schedule *tree = st && st->launch ? launch_tree(m, st, &packed) : NULL;
  int shared = tree != NULL;
  if (!tree) tree = isl_schedule_copy(m->original);
  int rc = sj_map_gpu(m, tree, 0, max_grid, plan, &cost, err);
  if (rc) {
    sj_buf_free(&packed);
    return rc;
  }
  if ((m->stencil && pointwise(m) != isl_bool_true) || !m->nstmts) {
    int several = packed.len && strchr(packed.data, ',');
    sj_buf_printf(&why, "GPU schedule: %s%s%s%s (one launch per kernel and host iteration):\n%s",
                  !m->stencil ? "the C order"
                  : shared    ? "per time step, the nests that touch nothing in common in a "
                                "step in one launch (stencil form: every space loop is parallel)"
                              : "the C order, per time step (stencil form: every space loop is "
                                "parallel)",
                  packed.len ? (several ? "; kernels " : "; kernel ") : "",
                  packed.len ? packed.data : "",
                  packed.len ? ": nests that fill little of their box (faces, sides), with their "
                               "places packed into the innermost dimensions"
                             : "",
                  plan->explain);
    sj_buf_free(&packed);
    explain_reductions(m, &why);
    free(plan->explain);
    plan->explain = sj_buf_take(&why);
    return 0;
  }
  sj_buf_free(&packed);
  sj_buf note = {0}, tried = {0};
  isl_schedule *cand[SJ_REORDER_MAX];
  char *label[SJ_REORDER_MAX];
  /* One deadline for isl's scheduler and the mapping of its trees, on the compile's context
   * too: what was computed once the abort was set is dropped, and the C order, mapped
   * already, stays. */
  sj_watchdog *dog = sj_watchdog_start(m->ctx, SJ_REORDER_MS);
  int n = sj_schedule_reorder(m, sj_clock_ms() + SJ_REORDER_MS, cand, label, &note), best = -1;
  int late = isl_ctx_aborted(m->ctx) > 0;
  sj_buf_printf(&tried, "the C order %.3g", cost);
  for (int i = 0; i < n; i++) {
    sj_plan other;
    sj_error other_err = {0, {0}};
    double other_cost;
    int failed = 1;
    if (late)
      isl_schedule_free(cand[i]);
    else
      failed = sj_map_gpu(m, cand[i], 1, max_grid, &other, &other_cost, &other_err);
    if (!late && isl_ctx_aborted(m->ctx) > 0) { /* mapped, or failed, with isl stopped */
      late = 1;
      if (!failed) sj_plan_clear(&other);
    }
    if (late) {
      sj_buf_printf(&tried, ", isl's (%s) not mapped within the time budget (%d ms)", label[i],
                    SJ_REORDER_MS);
      continue;
    }
    /* a tree of isl's that cannot be mapped is no reason to fail the compile */
    if (failed) {
      sj_buf_printf(&tried, ", isl's (%s) not mapped: %s", label[i], other_err.msg);
      continue;
    }
    sj_buf_printf(&tried, ", isl's (%s) %.3g", label[i], other_cost);
    if (other_cost < cost) {
      sj_plan swap = *plan;
      *plan = other;
      other = swap;
      cost = other_cost;
      best = i;
    }
    sj_plan_clear(&other);
  }
  sj_watchdog_stop(dog);
  if (best >= 0)
    sj_buf_printf(&why, "GPU schedule: isl's (%s)", label[best]);
  else
    sj_buf_printf(&why, "GPU schedule: the C order");
  sj_buf_printf(&why, " (modeled times: %s%s%s; one launch per kernel and host iteration):\n%s",
                tried.data, note.len ? "; " : "", note.len ? note.data : "", plan->explain);
  explain_reductions(m, &why);
  for (int i = 0; i < n; i++) free(label[i]);
  sj_buf_free(&note);
  sj_buf_free(&tried);
  free(plan->explain);
  plan->explain = sj_buf_take(&why);
  return 0;
}
