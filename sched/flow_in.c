/* The copy-in of a full tile's flow-in (issues 9 and 10): for a double buffer, the elements a
 * full tile reads at a step where it did not write them the step before, in place of both
 * planes of its box. A tile writes one plane before reading it at every step but the first, so
 * its box copy-in reads about a plane of values that are dead on arrival.
 *
 * Why a written-before element needs no copy: were it written by the tile only earlier than the
 * step before, a later tile would have written it in between, against the output dependence.
 * An element the tile reads before writing it is written by no other tile of the launch (the
 * tiles of a launch are independent), so its global value is the one the tile needs.
 *
 * Why one statement's accesses: the steps and planes are those of the statement that writes the
 * buffer inside the most loops (the stencil's). A tile where another statement touches it (a
 * boundary row, the copy of the last step, a point source) reads the plane being written within
 * a step, in an order the step-before test does not see: such tiles keep the box, the others
 * (most of them) take the flow-in (last_step_out split at 768^2 x 32: 2.41 -> 2.26 L2-model
 * DRAM B/update, boundary_sides split 3.83 -> 3.22).
 *
 * 2-D arrays without planes whose roles alternate with the steps (swapped by pointers: a nest a
 * parity of the step; a copy-back's pair; PolyBench's two nests): every statement whose
 * accesses to the array translate with the tile is followed, and an element a statement wrote
 * earlier in the same step, where its step runs before the reader's, needs no copy either. A
 * full tile then copies in one array's box and rims, where the box copy-in read both (fe_swap
 * 1024^2 x 32 with a 2 MB L2, hybrid: 13.0 -> 5.2 L2-model DRAM B/update).
 *
 * Why only full tiles, and as a constant shape: full tiles are translates of one shape, so their
 * flow-in is one set R of (step, element) offsets from the tile's origin (its first step and
 * its box's origin, both affine in the tile coordinates). The copy scans that set translated by
 * the origin: bounds with constant offsets, which the lowering unrolls like the box's copy. The
 * per-tile flow-in stated by isl directly has divisions in the tile coordinates, and scanning
 * it cost 2 to 10 times the instructions (branch `dram`, bench/results/dram.md).
 *
 * How R is found and checked: R is the flow-in of one tile in the middle of the tiles (the union
 * over all tiles adds the extra reads of the tiles an edge of the instances cuts, and then no
 * tile's flow-in is R: what kept 2-D hybrid tiles on the box). It holds for every tile whose
 * instances are the middle tile's translated by the difference of their origins (isl checks
 * that over the tiles' instances alone) where every access of the array is the instance's space
 * coordinates plus constants (checked too): such a tile reads and writes the same elements
 * translated. Computing each tile's flow-in and comparing it with R took seconds for heat-2d
 * hybrid tiles; this takes about 0.1 s. The other tiles keep the box. */
#include "sched/hybrid.h"
#include "sched/flow_rect.h"

#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

/* The most planes of a double buffer copied by its flow-in (A[t % 2]: 2). */
#define SJ_FLOW_MAX_MOD 4

/* Into *shift: where dimension 0 of acc's element is (t + shift) mod mod, t the statement's
 * first iterator (its time step); -1 when it is not. */
static int plane_of(const sj_access *acc, int mod, int *shift) {
  isl_map *rel = isl_map_copy(acc->rel);
  rel = isl_map_project_out(rel, isl_dim_out, 1, isl_map_dim(rel, isl_dim_out) - 1);
  isl_local_space *ls = isl_local_space_from_space(isl_space_domain(isl_map_get_space(rel)));
  isl_aff *t = isl_aff_var_on_domain(ls, isl_dim_set, 0);
  isl_set *dom = isl_map_domain(isl_map_copy(rel));
  int found = -1;
  for (int k = 0; k < mod && found < 0; k++) {
    isl_aff *p = isl_aff_mod_val(isl_aff_add_constant_si(isl_aff_copy(t), k),
                                 isl_val_int_from_si(isl_map_get_ctx(rel), mod));
    isl_map *plane = isl_map_intersect_domain(isl_map_from_aff(p), isl_set_copy(dom));
    if (isl_map_is_equal(plane, rel) == isl_bool_true) found = k;
    isl_map_free(plane);
  }
  isl_set_free(dom);
  isl_aff_free(t);
  isl_map_free(rel);
  *shift = found;
  return found < 0 ? -1 : 0;
}

/* The statement that writes sym inside the most loops (the stencil's, not a boundary's), the
 * first of them; NULL where none does. */
static const sj_pstmt *stepping(const sj_model *m, const sj_sym *sym) {
  const sj_pstmt *s = NULL;
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    if (acc->is_write && acc->ref->sym->id == sym->id && (!s || acc->stmt->depth > s->depth))
      s = acc->stmt;
  }
  return s;
}

/* The most statements whose steps one flow-in follows (a rotation of arrays: one a place). */
#define SJ_FLOW_MAX_STMTS 8

typedef struct steppers {
  int n;
  const sj_pstmt *s[SJ_FLOW_MAX_STMTS];
} steppers;

static int is_stepper(const steppers *st, const sj_pstmt *s) {
  for (int k = 0; k < st->n; k++)
    if (st->s[k] == s) return 1;
  return 0;
}

int sj_steps_before(const sj_model *m, const sj_pstmt *const *a, int na, const sj_pstmt *const *b,
                    int nb, int dt) {
  isl_union_set *dom = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
  isl_union_map *pairs = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
  for (int k = 0; k < na; k++) dom = isl_union_set_add_set(dom, isl_set_copy(a[k]->domain));
  for (int l = 0; l < nb; l++) {
    dom = isl_union_set_add_set(dom, isl_set_copy(b[l]->domain));
    for (int k = 0; k < na; k++) { /* A[t, ..] -> B[t + dt, ..] */
      isl_map *p =
          isl_map_from_domain_and_range(isl_set_copy(a[k]->domain), isl_set_copy(b[l]->domain));
      isl_constraint *at =
          isl_constraint_alloc_equality(isl_local_space_from_space(isl_map_get_space(p)));
      at = isl_constraint_set_coefficient_si(at, isl_dim_out, 0, 1);
      at = isl_constraint_set_coefficient_si(at, isl_dim_in, 0, -1);
      at = isl_constraint_set_constant_si(at, -dt);
      pairs = isl_union_map_add_map(pairs, isl_map_add_constraint(p, at));
    }
  }
  isl_union_map *order = isl_union_map_intersect_domain(isl_schedule_get_map(m->original), dom);
  isl_union_map *before = isl_union_map_lex_lt_union_map(isl_union_map_copy(order), order);
  isl_bool is_before = isl_union_map_is_empty(pairs) == isl_bool_false
                           ? isl_union_map_is_subset(pairs, before)
                           : isl_bool_false;
  isl_union_map_free(pairs);
  isl_union_map_free(before);
  return is_before == isl_bool_true;
}

/* The tiles (in space) where a statement other than those of st accesses sym, of ui (tile ->
 * the model's instances): the flow-in of their steps says nothing of that statement's reads,
 * nor of the order of its writes within a step, so they keep the box (a copy of the last step,
 * a boundary row). */
static __isl_give isl_set *mixed_tiles(const sj_model *m, const steppers *st, const sj_sym *sym,
                                       __isl_keep isl_union_map *ui, __isl_take isl_space *space) {
  isl_union_set *other = isl_union_set_empty(isl_space_params(isl_space_copy(space)));
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    if (acc->ref->sym->id == sym->id && !is_stepper(st, acc->stmt))
      other = isl_union_set_add_set(other, isl_set_copy(acc->stmt->domain));
  }
  isl_union_set *tiles =
      isl_union_map_domain(isl_union_map_intersect_range(isl_union_map_copy(ui), other));
  isl_set *res = isl_union_set_extract_set(tiles, space);
  isl_union_set_free(tiles);
  return res;
}

/* Whether sym is a double buffer whose planes go with statement s's steps: the plane
 * (dimension 0, of range mod from 0) its only left-out dimension, every read of s at step t
 * from plane (t + shift) mod mod and every write to the plane the next step reads; into c its
 * plane. */
static int stepped_planes(const sj_model *m, const sj_pstmt *s, const sj_sym *sym, int mask,
                          int mod, sj_copy *c) {
  if (mask != 1 || mod < 2) return 0;
  int rd = -1, wr = -1;
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    if (acc->ref->sym->id != sym->id || acc->stmt != s) continue;
    int *want = acc->is_write ? &wr : &rd, k;
    if (plane_of(acc, mod, &k) || (*want >= 0 && *want != k)) return 0;
    *want = k;
  }
  if (rd < 0 || wr != (rd + 1) % mod) return 0;
  c->mod = mod;
  c->shift = rd;
  return 1;
}

/* [L, S..] -> [t, element] of rel (instance -> element without its plane) over the instances
 * inst, t the statement's first iterator (kept: [L, S..] -> element). */
static __isl_give isl_map *timed(__isl_keep isl_union_set *inst, __isl_keep isl_union_map *back,
                                 __isl_keep isl_union_map *coords, __isl_keep isl_union_map *rel,
                                 __isl_keep isl_space *kept) {
  isl_union_map *acc =
      isl_union_map_intersect_domain(isl_union_map_copy(back), isl_union_set_copy(inst));
  isl_union_map *step = isl_union_map_copy(acc);
  acc = isl_union_map_apply_range(acc, isl_union_map_copy(rel));
  isl_union_set *stmts = isl_union_map_range(isl_union_map_copy(step));
  isl_union_map *first = isl_union_map_empty(isl_union_set_get_space(stmts));
  isl_set_list *list = isl_union_set_get_set_list(stmts);
  for (int i = 0; i < (int)isl_set_list_n_set(list); i++) {
    isl_set *set = isl_set_list_get_set(list, i);
    int dims = (int)isl_set_dim(set, isl_dim_set);
    isl_map *t = isl_map_project_out(isl_set_identity(set), isl_dim_out, 1, dims - 1);
    first = isl_union_map_add_map(first, isl_map_reset_tuple_id(t, isl_dim_out));
  }
  isl_set_list_free(list);
  isl_union_set_free(stmts);
  step = isl_union_map_apply_range(step, first);
  acc = isl_union_map_range_product(step, acc);
  acc = isl_union_map_apply_domain(acc, isl_union_map_copy(coords));
  isl_space *range = isl_space_wrap(isl_space_map_from_domain_and_range(
      isl_space_set_alloc(isl_space_get_ctx(kept), 0, 1), isl_space_range(isl_space_copy(kept))));
  isl_space *space =
      isl_space_map_from_domain_and_range(isl_space_domain(isl_space_copy(kept)), range);
  isl_map *res = isl_union_map_extract_map(acc, space);
  isl_union_map_free(acc);
  return isl_map_flatten_range(res);
}

typedef struct widest {
  long span;
  isl_set *dom;
  isl_aff *aff;
} widest;

/* Keeps the piece of integer affine function whose domain spans the most wavefronts L. */
static isl_stat keep_widest(__isl_take isl_set *dom, __isl_take isl_aff *aff, void *user) {
  widest *w = user;
  long lo, hi;
  if (isl_aff_dim(aff, isl_dim_div) == 0 && !sj_set_dim_range(dom, 0, &lo, &hi) &&
      hi - lo > w->span) {
    w->span = hi - lo;
    isl_set_free(w->dom);
    isl_aff_free(w->aff);
    w->dom = dom, w->aff = aff;
    return isl_stat_ok;
  }
  isl_set_free(dom);
  isl_aff_free(aff);
  return isl_stat_ok;
}

/* The tiles' origin c -> [t0(c), box origin(c) along the kept dimensions, those from `from`] in
 * space out (t0: the first step of tile c in steps, c -> [t, ..]), over the tiles where t0 is
 * the affine piece spanning the most wavefronts (the tiles of the first band may start cut by
 * step 0): into *tiles; NULL where there is none. */
static __isl_give isl_multi_aff *origin(__isl_keep isl_map *steps, __isl_take isl_space *out,
                                        const sj_staged *s, int from, isl_set **tiles) {
  isl_pw_aff *first = isl_pw_aff_coalesce(isl_map_dim_min(isl_map_copy(steps), 0));
  widest w = {-1, NULL, NULL};
  isl_pw_aff_foreach_piece(first, keep_widest, &w);
  isl_pw_aff_free(first);
  if (!w.aff) {
    isl_set_free(w.dom);
    isl_space_free(out);
    return NULL;
  }
  *tiles = w.dom;
  isl_aff *t0 = w.aff;
  isl_space *space = isl_space_domain(isl_map_get_space(steps));
  isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
  isl_multi_aff *o = isl_multi_aff_zero(isl_space_map_from_domain_and_range(space, out));
  o = isl_multi_aff_set_aff(o, 0, t0);
  for (int d = from; d < s->rank; d++) {
    isl_aff *a = isl_aff_val_on_domain(
        isl_local_space_copy(ls), isl_val_int_from_si(isl_map_get_ctx(steps), s->origin[d][0]));
    for (int k = 0; k < s->ncoords; k++)
      a = isl_aff_add_coefficient_si(a, isl_dim_in, k, s->origin[d][1 + k]);
    o = isl_multi_aff_set_aff(o, 1 + d - from, a);
  }
  isl_local_space_free(ls);
  return o;
}

/* Into c the origin o (over the tile coordinates: the first step, then the staged box's): 0,
 * or -1 where it is not an integer affine function of them. An array without planes copies
 * no step: its origin is the box's. */
static int offsets_origin(__isl_keep isl_multi_aff *o, const sj_staged *s, sj_copy *c) {
  if (!c->mod) {
    memcpy(c->origin, s->origin, sizeof c->origin);
    return 0;
  }
  if (isl_multi_aff_dim(o, isl_dim_in) != s->ncoords) return -1;
  isl_aff *t0 = isl_multi_aff_get_aff(o, 0);
  int rc = sj_aff_row(t0, s->ncoords, c->origin[0]);
  isl_aff_free(t0);
  for (int d = 1; d < s->rank; d++) memcpy(c->origin[d], s->origin[d], sizeof c->origin[d]);
  return rc;
}

/* A tile of tiles near the middle of their range along each coordinate in turn: one that no
 * edge of the iteration space cuts where any tile is uncut (its flow-in is the shape of the
 * others; the union over all tiles would add the cut tiles' extra reads). */
static __isl_give isl_set *central(__isl_take isl_set *tiles) {
  int dims = (int)isl_set_dim(tiles, isl_dim_set);
  for (int d = 0; d < dims && tiles; d++) {
    long lo, hi;
    if (sj_set_dim_range(tiles, d, &lo, &hi)) return isl_set_free(tiles);
    isl_set *at = NULL;
    for (long k = 0; k <= hi - lo && !at; k++) { /* mid, then outwards */
      long x = (lo + hi) / 2 + (k % 2 ? (k + 1) / 2 : -(k / 2));
      if (x < lo || x > hi) continue;
      at = isl_set_fix_si(isl_set_copy(tiles), isl_dim_set, d, (int)x);
      if (isl_set_is_empty(at) != isl_bool_false) at = isl_set_free(at);
    }
    isl_set_free(tiles);
    tiles = at;
  }
  return tiles;
}

static isl_stat add_piece(__isl_take isl_basic_set *bset, void *user) {
  isl_set_list **list = user;
  *list = isl_set_list_add(*list, isl_set_from_basic_set(bset));
  return *list ? isl_stat_ok : isl_stat_error;
}

static isl_stat add_plain(__isl_take isl_basic_set *bset, void *user) {
  isl_set **res = user;
  *res = isl_set_union(*res, isl_set_from_basic_set(isl_basic_set_remove_divs(bset)));
  return *res ? isl_stat_ok : isl_stat_error;
}

/* shape (a bounded set of constants) without the existentially quantified variables that its
 * projection from the tiles left in it, where each piece is exact without them (the same set
 * otherwise). */
static __isl_give isl_set *plain_shape(__isl_take isl_set *shape) {
  shape = isl_set_coalesce(isl_set_make_disjoint(isl_set_detect_equalities(shape)));
  isl_set *plain = isl_set_empty(isl_set_get_space(shape));
  if (isl_set_foreach_basic_set(shape, add_plain, &plain) < 0 ||
      isl_set_is_equal(plain, shape) != isl_bool_true) {
    isl_set_free(plain);
    return shape;
  }
  isl_set_free(shape);
  return isl_set_coalesce(plain);
}

/* shape ([a, e..]: step a of the tile, element e of the plane of step a) with each element of
 * each plane kept at its first step only: a tile may read an element it never writes at several
 * steps of one plane (a column beside a parallelogram), and copying it once per step would have
 * threads write one shared element at once. Per step, so that no set has a modulo. */
static __isl_give isl_set *first_reads(__isl_take isl_set *shape, int mod) {
  long lo, hi;
  if (sj_set_dim_range(shape, 0, &lo, &hi)) return isl_set_free(shape);
  isl_space *elems = isl_space_drop_dims(isl_set_get_space(shape), isl_dim_set, 0, 1);
  isl_set *seen[SJ_FLOW_MAX_MOD], *res = isl_set_empty(isl_set_get_space(shape));
  for (int r = 0; r < mod; r++) seen[r] = isl_set_empty(isl_space_copy(elems));
  for (long a = lo; a <= hi; a++) {
    isl_set *slice = isl_set_fix_si(isl_set_copy(shape), isl_dim_set, 0, (int)a);
    slice = isl_set_project_out(slice, isl_dim_set, 0, 1);
    int r = (int)(a - lo) % mod;
    isl_set *fresh = isl_set_subtract(slice, isl_set_copy(seen[r]));
    seen[r] = isl_set_union(seen[r], isl_set_copy(fresh));
    isl_set *at = isl_set_insert_dims(fresh, isl_dim_set, 0, 1);
    res = isl_set_union(res, isl_set_fix_si(at, isl_dim_set, 0, (int)a));
  }
  for (int r = 0; r < mod; r++) isl_set_free(seen[r]);
  isl_space_free(elems);
  isl_set_free(shape);
  return isl_set_coalesce(res);
}

/* The copies of shape (taken): over 2-D planes, rectangles per plane (sched/flow_rect.c: *rects
 * set); else its convex pieces, each element of a plane at its first read. */
static __isl_give isl_set_list *copy_pieces(__isl_take isl_set *shape, int mod, int *rects) {
  *rects = isl_set_dim(shape, isl_dim_set) == 3;
  if (*rects) return sj_flow_rects(shape, mod);
  shape = isl_set_make_disjoint(first_reads(shape, mod));
  isl_set_list *pieces = isl_set_list_alloc(isl_set_get_ctx(shape), 2);
  if (isl_set_foreach_basic_set(shape, add_piece, &pieces) < 0) pieces = isl_set_list_free(pieces);
  isl_set_free(shape);
  return pieces;
}

/* [t, x..] -> [x..] of a statement's domain dom, in the unnamed space of its elements. */
static __isl_give isl_map *space_of(__isl_take isl_set *dom) {
  isl_map *x = isl_map_project_out(isl_set_identity(dom), isl_dim_out, 0, 1);
  return isl_map_reset_tuple_id(x, isl_dim_out);
}

/* Whether rel ([t, x..] -> e, over the statement's whole domain dom) reads or writes e = x + d
 * for each d of one finite set of constants at every instance: then a tile translated by
 * (dt, dx) accesses the elements translated by dx. */
static int translated(__isl_take isl_map *rel, __isl_keep isl_set *dom) {
  rel = isl_map_reset_tuple_id(rel, isl_dim_out);
  if (isl_map_dim(rel, isl_dim_in) != isl_map_dim(rel, isl_dim_out) + 1) {
    isl_map_free(rel);
    return 0;
  }
  isl_map *x = isl_map_apply_range(isl_map_reverse(space_of(isl_set_copy(dom))), isl_map_copy(rel));
  isl_set *d = isl_map_deltas(x);
  int ok = isl_set_is_bounded(d) == isl_bool_true;
  isl_map *same =
      isl_map_sum(space_of(isl_set_copy(dom)), isl_map_from_domain_and_range(isl_set_copy(dom), d));
  ok = ok && isl_map_is_equal(same, rel) == isl_bool_true;
  isl_map_free(same);
  isl_map_free(rel);
  return ok;
}

/* The tiles of inst (c -> the statement's instances of tile c) whose instances are the central
 * tile's translated by o(c) - o(central) (o: the origin in the instances' space). */
static __isl_give isl_set *translates(__isl_keep isl_map *inst, __isl_keep isl_multi_aff *o,
                                      __isl_take isl_set *tiles, __isl_keep isl_set *central) {
  isl_map *neg = isl_map_from_multi_aff(isl_multi_aff_neg(isl_multi_aff_copy(o)));
  isl_map *mine = isl_map_intersect_domain(isl_map_copy(inst), isl_set_copy(central));
  isl_set *shape =
      isl_map_range(isl_map_sum(mine, isl_map_intersect_domain(neg, isl_set_copy(central))));
  isl_map *want = isl_map_sum(
      isl_map_from_domain_and_range(isl_set_copy(tiles), shape),
      isl_map_intersect_domain(isl_map_from_multi_aff(isl_multi_aff_copy(o)), isl_set_copy(tiles)));
  isl_map *have = isl_map_intersect_domain(isl_map_copy(inst), isl_set_copy(tiles));
  isl_set *more = isl_map_domain(isl_map_subtract(isl_map_copy(have), isl_map_copy(want)));
  isl_set *less = isl_map_domain(isl_map_subtract(want, have));
  return isl_set_coalesce(isl_set_subtract(isl_set_subtract(tiles, more), less));
}

int sj_flow_in_enabled(void) {
  const char *v = getenv("JIT_FLOWIN");
  return !v || strcmp(v, "0") != 0;
}

/* Whether st's reads and writes of the array (kept's range) translate with the tile. */
static int accesses_translate(const sj_pstmt *st, __isl_keep isl_union_map *reads,
                              __isl_keep isl_union_map *writes, __isl_keep isl_space *kept) {
  isl_space *acc = isl_space_map_from_domain_and_range(isl_set_get_space(st->domain),
                                                       isl_space_range(isl_space_copy(kept)));
  int ok = translated(isl_union_map_extract_map(reads, isl_space_copy(acc)), st->domain) &&
           translated(isl_union_map_extract_map(writes, isl_space_copy(acc)), st->domain);
  isl_space_free(acc);
  return ok;
}

/* Into st the statements whose steps the flow-in of sym follows: of a double buffer (mask 1:
 * its plane, dimension 0, the only one left out), the stencil's, its planes going with its
 * steps (into c); of a 2-D array without planes (mask 0), every statement whose accesses to it
 * translate with the tile (arrays swapped between steps: each written at a step by the nest of
 * one parity and read at the next by the other's). Their steps must run forward. 0 where there
 * are none. Not in 1-D: there a box is one range, which the flow-in's pieces cut into more
 * copies than they save loads (a swapped 1-D pair, 65536 x 64, hybrid: 13% more instructions
 * for 5% fewer DRAM bytes), nor in 3-D, whose hybrid tiles copy their box (sched/hybrid.c). */
static int find_steppers(const sj_model *m, const sj_sym *sym, int mask, int mod,
                         __isl_keep isl_union_map *reads, __isl_keep isl_union_map *writes,
                         __isl_keep isl_space *kept, steppers *st, sj_copy *c) {
  st->n = 0;
  if (mask == 1) {
    const sj_pstmt *s = stepping(m, sym);
    if (!s || mod > SJ_FLOW_MAX_MOD || !stepped_planes(m, s, sym, mask, mod, c) ||
        !accesses_translate(s, reads, writes, kept))
      return 0;
    st->s[st->n++] = s;
  } else if (mask == 0 && isl_space_dim(kept, isl_dim_out) == 2) {
    for (int i = 0; i < m->naccesses; i++) {
      const sj_pstmt *s = m->accesses[i].stmt;
      if (m->accesses[i].ref->sym->id != sym->id || is_stepper(st, s)) continue;
      if (!accesses_translate(s, reads, writes, kept)) continue;
      if (st->n == SJ_FLOW_MAX_STMTS) return 0;
      st->s[st->n++] = s;
    }
  }
  /* the step before t is t - 1 (a loop counting down runs its steps backwards) */
  return st->n > 0 && sj_steps_before(m, st->s, st->n, st->s, st->n, 1);
}

/* The accesses rel of statement s alone. */
static __isl_give isl_union_map *of_stmt(__isl_keep isl_union_map *rel, const sj_pstmt *s) {
  return isl_union_map_intersect_domain(isl_union_map_copy(rel),
                                        isl_union_set_from_set(isl_set_copy(s->domain)));
}

/* [L, S..] -> [t, e]: the elements e the tile's instances inst read at step t that it did not
 * write the step before, nor earlier in step t by a statement whose step t runs before the
 * reader's (the copy of a copy-back, the second nest of PolyBench's jacobi-2d): a tile's steps
 * run in order, and within one step it follows every dependence, so those elements are the
 * tile's own values, in shared memory, when read. */
static __isl_give isl_map *exposed(const sj_model *m, const steppers *st,
                                   __isl_keep isl_union_set *inst, __isl_keep isl_union_map *back,
                                   __isl_keep isl_union_map *coords,
                                   __isl_keep isl_union_map *reads,
                                   __isl_keep isl_union_map *writes, __isl_keep isl_space *kept) {
  isl_map *w = timed(inst, back, coords, writes, kept);
  /* [t, e] -> [t + 1, e]: written the step before t */
  isl_space *space = isl_space_range(isl_map_get_space(w));
  isl_multi_aff *next = isl_multi_aff_identity(isl_space_map_from_set(space));
  isl_aff *t = isl_multi_aff_get_aff(next, 0);
  next = isl_multi_aff_set_aff(next, 0, isl_aff_add_constant_si(t, 1));
  w = isl_map_apply_range(w, isl_map_from_multi_aff(next));
  if (st->n == 1) return isl_map_subtract(timed(inst, back, coords, reads, kept), w);
  isl_map *flow = isl_map_empty(isl_map_get_space(w));
  for (int k = 0; k < st->n; k++) {
    isl_union_map *rel = of_stmt(reads, st->s[k]);
    isl_map *r = isl_map_subtract(timed(inst, back, coords, rel, kept), isl_map_copy(w));
    isl_union_map_free(rel);
    for (int l = 0; l < st->n; l++) {
      if (l == k || !sj_steps_before(m, &st->s[l], 1, &st->s[k], 1, 0)) continue;
      rel = of_stmt(writes, st->s[l]);
      r = isl_map_subtract(r, timed(inst, back, coords, rel, kept));
      isl_union_map_free(rel);
    }
    flow = isl_map_union(flow, r);
  }
  isl_map_free(w);
  return flow;
}

/* The elements, in space (array id's view, its dimension 0 a step t where mod: the plane
 * (t + shift) mod mod), that lie past the end of flat array id; NULL where there are none (no
 * view, or its last row is whole). */
static __isl_give isl_set *past_end(const sj_model *m, int id, __isl_take isl_space *space, int mod,
                                    int shift) {
  const long *view = sj_model_extents(m, id);
  int rank = (int)isl_space_dim(space, isl_dim_set);
  long elems = 1;
  for (int d = 0; d < rank; d++) elems *= view[d];
  if (view == m->extents[id] || elems <= m->extents[id][0]) {
    isl_space_free(space);
    return NULL;
  }
  /* the flat index minus the array's length, row-major over the view */
  isl_local_space *ls = isl_local_space_from_space(space);
  isl_aff *past = isl_aff_val_on_domain(isl_local_space_copy(ls),
                                        isl_val_int_from_si(m->ctx, -m->extents[id][0]));
  long stride = 1;
  for (int d = rank - 1; d >= 0; d--) {
    isl_aff *x = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)d);
    if (d == 0 && mod)
      x = isl_aff_mod_val(isl_aff_add_constant_si(x, shift), isl_val_int_from_si(m->ctx, mod));
    past = isl_aff_add(past, isl_aff_scale_val(x, isl_val_int_from_si(m->ctx, stride)));
    stride *= view[d];
  }
  isl_local_space_free(ls);
  return isl_pw_aff_nonneg_set(isl_pw_aff_from_aff(past));
}

/* Whether no element of pieces (offsets from the origin o of each tile of tiles) lies past the
 * end of flat array id (the plane of a step as c has it). */
static int within_array(const sj_model *m, int id, __isl_keep isl_set_list *pieces,
                        __isl_keep isl_set *tiles, __isl_keep isl_multi_aff *o, const sj_copy *c) {
  int within = 1;
  for (int i = 0; within && i < isl_set_list_n_set(pieces); i++) {
    isl_set *piece = isl_set_list_get_set(pieces, i);
    isl_set *past = past_end(m, id, isl_set_get_space(piece), c->mod, c->shift);
    if (!past) {
      isl_set_free(piece);
      break;
    }
    isl_map *at =
        isl_map_sum(isl_map_from_domain_and_range(isl_set_copy(tiles), piece),
                    isl_map_intersect_domain(isl_map_from_multi_aff(isl_multi_aff_copy(o)),
                                             isl_set_copy(tiles)));
    isl_set *elems = isl_map_range(at);
    within = isl_set_is_disjoint(elems, past) == isl_bool_true;
    isl_set_free(elems);
    isl_set_free(past);
  }
  return within;
}

/* The pieces of list (taken: [a, e..], a step and an element) without their step. */
static __isl_give isl_set_list *without_steps(__isl_take isl_set_list *list) {
  for (int i = 0; list && i < isl_set_list_n_set(list); i++) {
    isl_set *piece = isl_set_list_get_set(list, i);
    list = isl_set_list_set_set(list, i, isl_set_project_out(piece, isl_dim_set, 0, 1));
  }
  return list;
}

__isl_give isl_map_list *sj_flow_in(const sj_model *m, const sj_sym *sym, int mask, int mod,
                                    __isl_keep isl_union_set *full, __isl_keep isl_union_map *back,
                                    __isl_keep isl_union_map *coords,
                                    __isl_keep isl_union_map *reads,
                                    __isl_keep isl_union_map *writes, __isl_keep isl_space *kept,
                                    const sj_staged *s, sj_copy *c) {
  steppers st;
  if (!full || !find_steppers(m, sym, mask, mod, reads, writes, kept, &st, c)) return NULL;
  int planes = mask != 0; /* the box's dimension 0 is a plane: the copy keeps the step */
  /* c -> the steppers' instances of full tile c: each's, and all of them */
  isl_union_map *ui =
      isl_union_map_intersect_domain(isl_union_map_copy(back), isl_union_set_copy(full));
  ui = isl_union_map_apply_domain(ui, isl_union_map_copy(coords));
  isl_map *each[SJ_FLOW_MAX_STMTS], *inst = NULL;
  for (int k = 0; k < st.n; k++) {
    isl_map *one = isl_union_map_extract_map(
        ui, isl_space_map_from_domain_and_range(isl_space_domain(isl_space_copy(kept)),
                                                isl_set_get_space(st.s[k]->domain)));
    each[k] = isl_map_reset_tuple_id(one, isl_dim_out); /* in the elements' space */
    inst = inst ? isl_map_union(inst, isl_map_copy(each[k])) : isl_map_copy(each[k]);
  }
  isl_set *mixed = mixed_tiles(m, &st, sym, ui, isl_space_domain(isl_space_copy(kept)));
  isl_union_map_free(ui);
  isl_set *tiles = NULL;
  isl_multi_aff *o = NULL;
  if (isl_map_is_empty(inst) == isl_bool_false)
    o = origin(inst, isl_space_range(isl_map_get_space(inst)), s, planes, &tiles);
  if (o) tiles = isl_set_subtract(tiles, isl_set_copy(mixed));
  isl_set_free(mixed);
  isl_set *mid = o ? central(isl_set_copy(tiles)) : NULL;
  isl_map_list *res = NULL;
  if (mid && isl_set_is_empty(mid) == isl_bool_false) {
    /* R: the central tile's flow-in from its origin, for the tiles that are its translates */
    isl_set *dom = tiles;
    tiles = NULL;
    for (int k = 0; k < st.n; k++) dom = translates(each[k], o, dom, mid);
    isl_union_set *one = isl_union_set_apply(isl_union_set_from_set(isl_set_copy(mid)),
                                             isl_union_map_reverse(isl_union_map_copy(coords)));
    one = isl_union_set_intersect(one, isl_union_set_copy(full));
    isl_map *flow = exposed(m, &st, one, back, coords, reads, writes, kept);
    isl_union_set_free(one);
    isl_multi_aff *oe = isl_multi_aff_copy(o);
    isl_map *neg = isl_map_from_multi_aff(isl_multi_aff_neg(isl_multi_aff_copy(oe)));
    isl_set *shape =
        plain_shape(isl_map_range(isl_map_sum(flow, isl_map_intersect_domain(neg, mid))));
    mid = NULL;
    isl_set_list *pieces = NULL;
    int rects = 0;
    if (isl_set_is_empty(dom) == isl_bool_false && isl_set_is_empty(shape) == isl_bool_false)
      pieces = copy_pieces(shape, planes ? mod : 1, &rects);
    else
      isl_set_free(shape);
    if (!planes) { /* the element alone: it has no plane to find from the step */
      pieces = without_steps(pieces);
      oe = isl_multi_aff_drop_dims(oe, isl_dim_out, 0, 1);
    }
    /* rectangles: copied as offsets from the origin, their loops' bounds constant (the lowering
     * adds the origin, sj_copy) */
    c->offsets = pieces && rects && offsets_origin(oe, s, c) == 0;
    c->within = pieces && within_array(m, sym->id, pieces, dom, oe, c);
    for (int i = 0; pieces && i < isl_set_list_n_set(pieces); i++) {
      /* a copy per piece of R: scanned apart, each has tight loops */
      if (!res) res = isl_map_list_alloc(isl_set_list_get_ctx(pieces), 2);
      isl_map *same =
          isl_map_from_domain_and_range(isl_set_copy(dom), isl_set_list_get_set(pieces, i));
      if (!c->offsets)
        same = isl_map_sum(same,
                           isl_map_intersect_domain(isl_map_from_multi_aff(isl_multi_aff_copy(oe)),
                                                    isl_set_copy(dom)));
      res = isl_map_list_add(res, isl_map_coalesce(same));
    }
    isl_set_list_free(pieces);
    isl_set_free(dom);
    isl_multi_aff_free(oe);
  }
  isl_set_free(mid);
  isl_set_free(tiles);
  isl_multi_aff_free(o);
  isl_map_free(inst);
  for (int k = 0; k < st.n; k++) isl_map_free(each[k]);
  return res;
}
