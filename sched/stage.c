/* Shared-memory staging of a time-tiled kernel (thesis §5): each block copies the box of
 * what its tile touches into shared memory and runs every time step of the tile there; each
 * value computed is written to shared memory and through to global memory.
 *
 *   sequence
 *   ├─ extension: copy-in ─ mark "threads" ─ filter (a mod block = thread id) ─ band [a]
 *   ├─ extension: barrier
 *   └─ filter (the block's tile) ─ band [t] ...    the tile's steps, a barrier after each
 *
 * Why this is right: the tiles of one launch run concurrently, so no dependence joins them.
 * A value a tile reads was therefore written before the launch or by the tile itself, and no
 * other tile of the launch writes an element this tile touches: copying the whole box in
 * reads elements other tiles may be writing, but this tile never uses them.
 *
 * Why write through rather than copy the tile's results out at the end: the set of elements
 * a tile wrote is the projection of the tile along time, which isl can state exactly only
 * with existentially quantified variables; scanning it cost seconds of AST generation in 3D.
 * The stores of a step go to L2, where the next step's stores to the same sectors merge with
 * them, so the DRAM sees about one write per element and band. */
#include "sched/hybrid.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/fixed_box.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

typedef struct coords_arg {
  int n;
  isl_union_map *res;
} coords_arg;

static isl_stat add_coords(__isl_take isl_set *set, void *user) {
  coords_arg *a = user;
  int dims = (int)isl_set_dim(set, isl_dim_set), depth = dims - (a->n + 4);
  isl_map *c = isl_set_identity(set);
  c = isl_map_project_out(c, isl_dim_out, depth + 1, 2); /* p, T */
  c = isl_map_project_out(c, isl_dim_out, 0, depth);
  c = isl_map_reset_tuple_id(c, isl_dim_out);
  a->res = isl_union_map_add_map(a->res, c);
  return a->res ? isl_stat_ok : isl_stat_error;
}

/* Each tiled instance S[x, L, p, T, S0, .., Sn] -> [L, S0, .., Sn]. */
static __isl_give isl_union_map *tile_coords(__isl_keep isl_union_set *dom, int n) {
  coords_arg a = {n, isl_union_map_empty(isl_union_set_get_space(dom))};
  if (isl_union_set_foreach_set(dom, add_coords, &a) < 0) a.res = isl_union_map_free(a.res);
  return a.res;
}

/* The dimensions of an array whose index is a division or a modulo in some access (the
 * double buffer's t % 2) and takes at most SJ_STAGE_DIV_SPAN values over the whole domain (or
 * the array has at most that many along it): their box is that range, and they are left out
 * of the footprint. Kept, a modulo makes the footprint's projection along time existentially
 * quantified, and its box hull costs more than the rest of the compile (isl computes the
 * existentials explicitly). */
#define SJ_STAGE_DIV_SPAN 4
/* At most this many pieces of a flow-in are copied apart (more keep the box). */
#define SJ_FLOW_MAX_PIECES 16
typedef struct div_dims {
  int mask; /* bit d: dimension d left out */
  long lo[SJ_STAGE_MAX_RANK], hi[SJ_STAGE_MAX_RANK];
} div_dims;

static isl_stat has_div(__isl_take isl_set *set, __isl_take isl_aff *aff, void *user) {
  isl_size divs = isl_aff_dim(aff, isl_dim_div);
  isl_set_free(set);
  isl_aff_free(aff);
  *(int *)user |= divs != 0;
  return divs < 0 ? isl_stat_error : isl_stat_ok;
}

/* The dimensions of acc's element that are quasi-affine functions (a division or a modulo) of
 * the instance, as bits (all of them when isl fails). */
static int indexes_by_div(const sj_access *acc) {
  isl_pw_multi_aff *pma = isl_pw_multi_aff_from_map(isl_map_copy(acc->rel));
  int mask = 0;
  for (int d = 0; d < acc->ref->sym->rank; d++) {
    isl_pw_aff *pa = isl_pw_multi_aff_get_pw_aff(pma, d);
    int found = 0;
    if (isl_pw_aff_foreach_piece(pa, has_div, &found) < 0) found = 1;
    isl_pw_aff_free(pa);
    mask |= found << d;
  }
  isl_pw_multi_aff_free(pma);
  return mask;
}

/* The range of index d over the elements the accesses of array id touch: the array's extent
 * where that is narrow already; -1 when isl fails. */
static int index_range(const sj_model *m, int id, int d, long *lo, long *hi) {
  *lo = 0, *hi = sj_model_extents(m, id)[d] - 1;
  if (*hi < SJ_STAGE_DIV_SPAN) return 0;
  int any = 0;
  for (int i = 0; i < m->naccesses; i++) {
    if (m->accesses[i].ref->sym->id != id) continue;
    isl_set *range = isl_map_range(isl_map_copy(m->accesses[i].rel));
    long a, b;
    int rc = sj_set_dim_range(range, d, &a, &b);
    isl_set_free(range);
    if (rc) return -1;
    if (a > b) continue;
    *lo = any && *lo < a ? *lo : a;
    *hi = any && *hi > b ? *hi : b;
    any = 1;
  }
  return any ? 0 : -1;
}

static void find_div_dims(const sj_model *m, const sj_sym *sym, div_dims *dd) {
  int by_div = 0;
  for (int i = 0; i < m->naccesses; i++)
    if (m->accesses[i].ref->sym->id == sym->id) by_div |= indexes_by_div(&m->accesses[i]);
  dd->mask = 0;
  for (int d = 0; d < sym->rank && d < SJ_STAGE_MAX_RANK; d++)
    if ((by_div >> d & 1) && index_range(m, sym->id, d, &dd->lo[d], &dd->hi[d]) == 0 &&
        dd->hi[d] - dd->lo[d] < SJ_STAGE_DIV_SPAN)
      dd->mask |= 1 << d;
}

/* The accesses of the model's arrays (reads, or writes), without their arrays' left-out
 * dimensions (dd, per array id; arrays beyond narrays keep theirs). */
static __isl_give isl_union_map *accesses_kept(const sj_model *m, int writes, const div_dims *dd) {
  isl_union_map *res = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    if (acc->is_write != writes) continue;
    int id = acc->ref->sym->id, mask = id < m->fn->narrays ? dd[id].mask : 0;
    isl_map *rel = isl_map_copy(acc->rel);
    isl_id *array = isl_map_has_tuple_id(rel, isl_dim_out) == isl_bool_true
                        ? isl_map_get_tuple_id(rel, isl_dim_out)
                        : NULL;
    for (int d = acc->ref->sym->rank - 1; d >= 0; d--)
      if (mask >> d & 1) rel = isl_map_project_out(rel, isl_dim_out, d, 1);
    if (array) rel = isl_map_set_tuple_id(rel, isl_dim_out, array); /* dropped with a dimension */
    res = isl_union_map_add_map(res, rel);
  }
  return res;
}

/* [L, S..] -> element, of the elements the instances dom touch through rel. */
static __isl_give isl_union_map *footprint(__isl_keep isl_union_set *dom,
                                           __isl_keep isl_union_map *back,
                                           __isl_keep isl_union_map *coords,
                                           __isl_keep isl_union_map *rel) {
  isl_union_map *acc =
      isl_union_map_intersect_domain(isl_union_map_copy(back), isl_union_set_copy(dom));
  acc = isl_union_map_apply_range(acc, isl_union_map_copy(rel));
  return isl_union_map_apply_domain(acc, isl_union_map_copy(coords));
}

/* CPU milliseconds for the box of one footprint (box_of). isl's box hull of a flat array's
 * footprint (the rows of a 3-D tile, a plane apart: Parboil's stencil) took seconds, which
 * isl's operation budget does not bound, for a box far beyond any block's shared memory;
 * ordinary ones take a few milliseconds, far enough below that the machine's load does not
 * choose. */
enum { BOX_MS = 100 };

/* A box of nk dimensions over [L, S..]: row[d] its origin's coefficients (constant first),
 * size[d] its extent. */
typedef struct {
  long row[SJ_STAGE_MAX_RANK][SJ_STAGE_COEFS];
  long size[SJ_STAGE_MAX_RANK];
} coef_box;

/* isl's box of foot's range into b; -1 when there is none of a fixed size at an integer affine
 * origin. */
static int isl_box(__isl_keep isl_map *foot, int ncoords, coef_box *b) {
  isl_fixed_box *box = isl_map_get_range_simple_fixed_box_hull(foot);
  int rc = isl_fixed_box_is_valid(box) == isl_bool_true ? 0 : -1;
  isl_multi_aff *origin = rc ? NULL : isl_fixed_box_get_offset(box);
  isl_multi_val *size = rc ? NULL : isl_fixed_box_get_size(box);
  isl_size nk = rc ? 0 : isl_multi_val_size(size);
  for (int d = 0; d < nk && !rc; d++) {
    isl_aff *aff = isl_multi_aff_get_aff(origin, d);
    rc = sj_aff_row(aff, ncoords, b->row[d]);
    isl_aff_free(aff);
    isl_val *v = isl_multi_val_get_val(size, d);
    b->size[d] = isl_val_get_num_si(v);
    isl_val_free(v);
  }
  isl_multi_aff_free(origin);
  isl_multi_val_free(size);
  isl_fixed_box_free(box);
  return rc;
}

/* One piece (basic map) of a footprint: its elements ([L, S..] -> x, wrapped) and, where isl
 * finds one, its own box. */
typedef struct {
  isl_set *elements;
  int boxed;
  coef_box own;
} piece;

/* Whether p's own box along d has the slope (its coefficients of [L, S..]). */
static int same_slope(const piece *p, const long *slope, int d, int ncoords) {
  return p->boxed && !memcmp(p->own.row[d] + 1, slope + 1, (size_t)ncoords * sizeof *slope);
}

/* The range of x[d] - slope·[L, S..] over a piece's elements into *lo and *hi (slope[0], the
 * constant, unused); 1 when the piece is empty, -1 when it is unbounded. A piece whose own box
 * has that slope gives it without an integer program. */
static int offset_range(const piece *p, const long *slope, int d, int ncoords, long *lo, long *hi) {
  if (same_slope(p, slope, d, ncoords)) {
    *lo = p->own.row[d][0];
    *hi = *lo + p->own.size[d] - 1;
    return 0;
  }
  isl_aff *off = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(p->elements)),
                                       isl_dim_set, ncoords + d);
  for (int k = 0; k < ncoords; k++)
    off = isl_aff_set_coefficient_si(off, isl_dim_in, k, -slope[1 + k]);
  isl_val *a = isl_set_min_val(p->elements, off), *b = isl_set_max_val(p->elements, off);
  isl_aff_free(off);
  int rc = isl_val_is_infty(a) == isl_bool_true                                       ? 1
           : isl_val_is_int(a) == isl_bool_true && isl_val_is_int(b) == isl_bool_true ? 0
                                                                                      : -1;
  if (!rc) *lo = isl_val_get_num_si(a), *hi = isl_val_get_num_si(b);
  isl_val_free(a);
  isl_val_free(b);
  return rc;
}

/* The extent along d of every piece's elements from an origin of the given slope: its size,
 * and the origin's constant into *origin; LONG_MAX when it is unbounded or not below bound.
 * The pieces whose own boxes have the slope come first: the integer programs of the others
 * are skipped once the extent reaches bound. */
static long extent_along(const piece *pieces, int n, const long *slope, int d, int ncoords,
                         long bound, long *origin) {
  long lo = LONG_MAX, hi = LONG_MIN;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      if (same_slope(&pieces[i], slope, d, ncoords) == pass) continue;
      if (lo <= hi && hi - lo + 1 >= bound) return LONG_MAX;
      long a, z;
      int got = offset_range(&pieces[i], slope, d, ncoords, &a, &z);
      if (got < 0) return LONG_MAX;
      if (got) continue;
      lo = a < lo ? a : lo;
      hi = z > hi ? z : hi;
    }
  *origin = lo;
  return lo > hi || hi - lo + 1 >= bound ? LONG_MAX : hi - lo + 1;
}

/* The box of foot's range from its pieces: along each dimension, the narrowest extent of every
 * piece's elements from an origin of the slope of some piece's own box, the slopes that most
 * pieces share tried first. isl's box of the union first takes a simple hull of every piece:
 * up to a hundred milliseconds where a stencil's sides are set in statements of their own (13
 * pieces), close enough to BOX_MS that the machine's load chose the staging. -1 where no
 * piece has a box. */
static int box_by_pieces(__isl_keep isl_map *foot, int nk, int ncoords, coef_box *b) {
  isl_basic_map_list *list = isl_map_get_basic_map_list(foot);
  isl_size n = isl_basic_map_list_size(list);
  piece *pieces = n > 0 ? calloc((size_t)n, sizeof *pieces) : NULL;
  int *order = n > 0 ? calloc(2 * (size_t)n, sizeof *order) : NULL, rc = pieces && order ? 0 : -1;
  for (int i = 0; i < n && !rc; i++) {
    isl_basic_map *bmap = isl_basic_map_list_get_at(list, i);
    isl_map *map = isl_map_from_basic_map(isl_basic_map_copy(bmap));
    pieces[i].boxed = !isl_box(map, ncoords, &pieces[i].own);
    isl_map_free(map);
    pieces[i].elements = isl_set_from_basic_set(isl_basic_map_wrap(bmap));
  }
  for (int d = 0; d < nk && !rc; d++) {
    /* order: the first piece of each slope, by how many pieces share it */
    int nslopes = 0, *sharing = order + n;
    for (int r = 0; r < n; r++) {
      int q = 0;
      while (q < r && !same_slope(&pieces[q], pieces[r].own.row[d], d, ncoords)) q++;
      if (!pieces[r].boxed || q < r) continue;
      int count = 0;
      for (int i = 0; i < n; i++) count += same_slope(&pieces[i], pieces[r].own.row[d], d, ncoords);
      int at = nslopes++;
      for (; at > 0 && sharing[at - 1] < count; at--)
        sharing[at] = sharing[at - 1], order[at] = order[at - 1];
      sharing[at] = count, order[at] = r;
    }
    long best = LONG_MAX;
    for (int k = 0; k < nslopes; k++) {
      const long *slope = pieces[order[k]].own.row[d];
      long origin, size = extent_along(pieces, n, slope, d, ncoords, best, &origin);
      if (size >= best) continue;
      best = b->size[d] = size;
      memcpy(b->row[d], slope, sizeof b->row[d]);
      b->row[d][0] = origin;
    }
    rc = best < LONG_MAX ? 0 : -1;
  }
  for (int i = 0; pieces && i < n; i++) isl_set_free(pieces[i].elements);
  free(pieces);
  free(order);
  isl_basic_map_list_free(list);
  return rc;
}

/* The box of the elements foot ([L, S..] -> A, without the dimensions dd leaves out)
 * touches, in s, those dimensions from dd; -1 when it is not one of a fixed size at an integer
 * affine origin, or it was not found in BOX_MS. */
static int box_of(__isl_keep isl_map *foot, const div_dims *dd, sj_staged *s) {
  coef_box b = {{{0}}, {0}};
  int nk = (int)isl_map_dim(foot, isl_dim_out);
  if (nk < 0 || nk > SJ_STAGE_MAX_RANK) return -1;
  sj_watchdog *dog = sj_watchdog_start(isl_map_get_ctx(foot), BOX_MS);
  int rc = box_by_pieces(foot, nk, s->ncoords, &b) && isl_box(foot, s->ncoords, &b) ? -1 : 0;
  if (sj_watchdog_stop(dog) || rc) return -1;
  for (int d = 0, k = 0; d < s->rank; d++) {
    if (dd->mask >> d & 1) {
      for (int c = 0; c <= s->ncoords; c++) s->origin[d][c] = c ? 0 : dd->lo[d];
      s->size[d] = dd->hi[d] - dd->lo[d] + 1;
      continue;
    }
    memcpy(s->origin[d], b.row[k], sizeof b.row[k]);
    s->size[d] = b.size[k++];
  }
  return 0;
}

/* { x : aff(x) >= 0 } */
static __isl_give isl_set *nonneg(__isl_take isl_aff *aff) {
  return isl_set_from_basic_set(
      isl_aff_neg_basic_set(isl_aff_add_constant_si(isl_aff_neg(aff), -1)));
}

/* tiles -> the elements of s's box that lie in the array (extents ext), in space. */
static __isl_give isl_map *box_elements(__isl_take isl_space *space, __isl_take isl_set *tiles,
                                        const sj_staged *s, const long *ext) {
  isl_map *m = isl_map_universe(space);
  isl_local_space *ls = isl_local_space_from_space(isl_space_wrap(isl_map_get_space(m)));
  isl_set *wrapped = isl_map_wrap(m);
  for (int d = 0; d < s->rank; d++) {
    /* 0 <= a_d - origin_d < size_d and 0 <= a_d < ext_d */
    isl_aff *rel = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, s->ncoords + d);
    isl_aff *a = isl_aff_copy(rel);
    rel = isl_aff_add_constant_si(rel, -s->origin[d][0]);
    for (int k = 0; k < s->ncoords; k++)
      rel = isl_aff_add_coefficient_si(rel, isl_dim_in, k, -s->origin[d][1 + k]);
    isl_aff *hi = isl_aff_add_constant_si(isl_aff_neg(isl_aff_copy(rel)), s->size[d] - 1);
    isl_aff *ahi = isl_aff_add_constant_si(isl_aff_neg(isl_aff_copy(a)), ext[d] - 1);
    isl_aff *bounds[] = {rel, hi, a, ahi};
    for (int i = 0; i < 4; i++) wrapped = isl_set_intersect(wrapped, nonneg(bounds[i]));
  }
  isl_local_space_free(ls);
  m = isl_set_unwrap(wrapped);
  /* only for tiles that exist at L, as far as a simple hull tells (cheap to scan) */
  return isl_map_intersect_domain(m, isl_set_from_basic_set(isl_set_simple_hull(tiles)));
}

/* tiles -> the offsets in s's box (0 <= a_d < size_d), in space: the box's copy, which the
 * lowering clips to the array (sj_copy.offsets). Its loops then have constant bounds, where
 * the elements' own (the origin's max with 0, its min with the extent) cost isl's AST generator
 * a fifth of a 3-D hybrid compile. */
static __isl_give isl_map *box_offsets(__isl_take isl_space *space, __isl_take isl_set *tiles,
                                       const sj_staged *s) {
  isl_map *m = isl_map_universe(space);
  for (int d = 0; d < s->rank; d++) {
    m = isl_map_lower_bound_si(m, isl_dim_out, (unsigned)d, 0);
    m = isl_map_upper_bound_si(m, isl_dim_out, (unsigned)d, (int)(s->size[d] - 1));
  }
  /* only for tiles that exist at L, as far as a simple hull tells (cheap to scan) */
  return isl_map_intersect_domain(m, isl_set_from_basic_set(isl_set_simple_hull(tiles)));
}

/* The rows of a box at least this high stay a loop in the lowering (astgen/lower_full.c
 * unrolls a line of a few dozen copies): there a copy's loops kept to the array and run in
 * reverse save instructions, where the copies of an unrolled box each needed a guard of their
 * own and a loop over the planes (heat-2d hybrid 3072^2 x 16, h=1, boxes of 2 x 13 rows: +0.16
 * and +2.8 instructions per update; at 64 rows the flow-in's pieces of 45 stayed in order:
 * 18.68 against 18.55 at 1024^2, h=5). */
enum { MANY_ROWS = 32 };

/* The rows of the box dom (copies of rank dimensions: the points of all but the last), 0 where
 * not known. */
static long rows_of(__isl_keep isl_union_set *dom, int rank) {
  if (isl_union_set_n_set(dom) != 1) return 0;
  isl_set *set = isl_set_from_union_set(isl_union_set_copy(dom));
  int n = (int)isl_set_dim(set, isl_dim_set);
  isl_fixed_box *box = isl_set_get_simple_fixed_box_hull(set);
  long rows = 0;
  if (isl_fixed_box_is_valid(box) == isl_bool_true) {
    isl_multi_val *size = isl_fixed_box_get_size(box);
    rows = 1;
    for (int d = n - rank; d < n - 1; d++) {
      isl_val *v = isl_multi_val_get_val(size, d);
      rows *= isl_val_get_num_si(v);
      isl_val_free(v);
    }
    isl_multi_val_free(size);
  }
  isl_fixed_box_free(box);
  isl_set_free(set);
  return rows;
}

/* Below node (a leaf over dom, copies of rank dimensions) the copies the threads share out:
 * mark "threads" - filter - band [a]; returns the mark. The innermost dimension is spread along
 * x, the next along y and z; with steps, the first (a tile's steps) along x instead. Where only
 * the innermost dimension is spread (a block one row high), the rows are many (MANY_ROWS) and
 * the kernel's code for partial tiles stays in loops (k->unroll_partial not set), the loops run
 * in reverse, the innermost dimension's outermost: a box a little wider than the block (a
 * tile's row and its halo) has a second copy along x for a few threads, which then guards one
 * loop over the rows rather than each row, and a double buffer's planes are copied in one pass
 * (heat-2d hybrid 1024^2 x 32, h=5 w=32x256: 19.19 -> 18.55 instructions per update). With the
 * rows spread too, or few, their unrolled copies each ran a loop over the planes (h=3 w=8x256,
 * block 256x2: 27.34 -> 30.18); unrolled partial tiles ran more as well (split heat-2d: 27.35
 * -> 29.15). */
static __isl_give isl_schedule_node *copy_bands(__isl_take isl_schedule_node *node,
                                                __isl_take isl_union_set *dom, int rank, int steps,
                                                const sj_kernel *k) {
  isl_ctx *ctx = isl_schedule_node_get_ctx(node);
  /* a band per element dimension, the innermost along x (coalesced), each spread over the
   * threads of its block dimension by the lowering (cheaper for isl than a filter of
   * congruences, see sched/hybrid.c); thread dimensions beyond the rank stay at 0 */
  int reverse = !steps && !k->unroll_partial && k->block[1] == 1 && k->block[2] == 1 &&
                rows_of(dom, rank) >= MANY_ROWS;
  for (int i = 0; i < rank; i++) {
    int r = reverse ? i : rank - 1 - i;
    int d = steps ? (r == 0 ? 0 : 3) : rank - 1 - r;
    node = isl_schedule_node_insert_mark(
        node, isl_id_alloc(ctx, "spread_end", (void *)&sj_spread_end_tag));
    node = isl_schedule_node_insert_partial_schedule(
        node, isl_multi_union_pw_aff_from_union_pw_aff(sj_coordinate(dom, rank - r)));
    node = isl_schedule_node_band_member_set_ast_loop_type(node, 0, isl_ast_loop_atomic);
    if (d < 3 && k->block[d] > 1)
      node = isl_schedule_node_insert_mark(node,
                                           isl_id_alloc(ctx, "spread", (void *)&sj_spread_ids[d]));
  }
  isl_union_set *threads = NULL;
  for (int d = steps ? 1 : rank; d < 3; d++) {
    if (k->block[d] == 1) continue;
    isl_union_pw_aff *zero = isl_union_pw_aff_val_on_domain(
        isl_union_set_universe(isl_union_set_copy(dom)), isl_val_zero(ctx));
    isl_union_set *mine = sj_bound_to(zero, 0, 0, sj_map_id(ctx, 1, d));
    threads = threads ? isl_union_set_intersect(threads, mine) : mine;
  }
  isl_union_set_free(dom);
  if (threads) node = isl_schedule_node_insert_filter(node, threads);
  return isl_schedule_node_insert_mark(node, isl_id_alloc(ctx, "threads", (void *)&sj_threads_tag));
}

/* Frees a copy statement's sj_copy with its id. */
static void copy_free(void *user) {
  sj_copy *c = user;
  isl_schedule_free(c->elements);
  free(c);
}

/* The loops of a copy over its offsets (copy[a..]) as a schedule of their own, with the thread
 * ids bounded as in the kernel (copy_bands, steps[i] as there): the pieces of offsets in
 * sequence, each under a tuple of its own (they share their space). */
static __isl_give isl_schedule *elements_schedule(__isl_take isl_set_list *offsets,
                                                  const int *steps, int rank, const sj_kernel *k) {
  int n = (int)isl_set_list_n_set(offsets);
  isl_union_set_list *each = isl_union_set_list_alloc(isl_set_list_get_ctx(offsets), n);
  isl_union_set *all = NULL;
  for (int i = 0; i < n; i++) {
    /* a tuple id of their own: the copy's id would own the schedule that holds it, a cycle */
    char name[32];
    snprintf(name, sizeof name, i ? "copy_elements%d" : "copy_elements", i);
    isl_union_set *piece =
        isl_union_set_from_set(isl_set_set_tuple_name(isl_set_list_get_set(offsets, i), name));
    all = all ? isl_union_set_union(all, isl_union_set_copy(piece)) : isl_union_set_copy(piece);
    each = isl_union_set_list_add(each, piece);
  }
  isl_set_list_free(offsets);
  isl_schedule *own = isl_schedule_from_domain(all);
  isl_schedule_node *loops = isl_schedule_node_child(isl_schedule_get_root(own), 0);
  isl_schedule_free(own);
  if (n > 1) loops = isl_schedule_node_insert_sequence(loops, isl_union_set_list_copy(each));
  for (int i = 0; i < n; i++) {
    if (n > 1) loops = isl_schedule_node_child(isl_schedule_node_child(loops, i), 0);
    loops = copy_bands(loops, isl_union_set_list_get_union_set(each, i), rank, steps[i], k);
    if (n > 1) loops = isl_schedule_node_parent(isl_schedule_node_parent(loops));
  }
  isl_union_set_list_free(each);
  static const unsigned one[3] = {1, 1, 1};
  loops = sj_insert_kernel_context(loops, 0, NULL, one, k->block);
  isl_schedule *elements = isl_schedule_node_get_schedule(loops);
  isl_schedule_node_free(loops);
  return elements;
}

/* Whether the copy of pieces ([L, S..] -> A each) is of offsets the same for every tile: each
 * piece the product of one set of tiles and its offsets. */
static int pieces_apart(__isl_keep isl_map_list *pieces, sj_copy plan) {
  isl_map *first = isl_map_list_get_map(pieces, 0);
  isl_set *tiles = isl_map_domain(first);
  int apart = plan.offsets;
  for (int i = 0; apart && i < isl_map_list_n_map(pieces); i++) {
    isl_map *piece = isl_map_list_get_map(pieces, i);
    isl_map *product =
        isl_map_from_domain_and_range(isl_set_copy(tiles), isl_map_range(isl_map_copy(piece)));
    apart = isl_map_is_equal(piece, product) == isl_bool_true;
    isl_map_free(product);
    isl_map_free(piece);
  }
  isl_set_free(tiles);
  return apart;
}

/* The offsets a of set whose elements lie in the array (extents ext) along the dimensions of
 * mask: 0 <= o_d + a_d < ext_d, the origin o_d a parameter (sj_origin_id). */
static __isl_give isl_set *clamp_offsets(__isl_take isl_set *set, int mask, const long *ext) {
  for (int d = 0; d < SJ_STAGE_MAX_RANK; d++) {
    if (!(mask >> d & 1)) continue;
    unsigned pos = (unsigned)isl_set_dim(set, isl_dim_param);
    set = isl_set_add_dims(set, isl_dim_param, 1);
    set = isl_set_set_dim_id(set, isl_dim_param, pos, sj_origin_id(isl_set_get_ctx(set), d));
    isl_local_space *ls = isl_local_space_from_space(isl_set_get_space(set));
    isl_aff *at = isl_aff_add_coefficient_si(
        isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_param, pos), isl_dim_in, d, 1);
    isl_aff *below = isl_aff_add_constant_si(isl_aff_neg(isl_aff_copy(at)), ext[d] - 1);
    set = isl_set_intersect(isl_set_intersect(set, nonneg(at)), nonneg(below));
    isl_local_space_free(ls);
  }
  return set;
}

/* The instances of a copy bound to the block's tile, as the range of an extension of the prefix
 * schedule [L] (prefix: its universe) into *ext: where the pieces ([L, S..] -> A each, steps[i]
 * as copy_bands has them) are apart (pieces_apart), copy[L, S..], with the loops over their
 * offsets in sequence in the copy's `elements` (kept to the array (extents) along plan.clamp);
 * else copy[L, S.., a..] of the one piece. */
static __isl_give isl_union_set *copy_domain(__isl_take isl_map_list *pieces, const int *steps,
                                             int apart, __isl_keep isl_set *prefix, sj_copy plan,
                                             const long *extents, int n, const long *lo,
                                             const sj_kernel *k, isl_union_map **ext) {
  isl_ctx *ctx = isl_map_list_get_ctx(pieces);
  isl_map *elems = isl_map_list_get_map(pieces, 0);
  int rank = (int)isl_map_dim(elems, isl_dim_out);
  sj_copy *c = malloc(sizeof *c);
  if (!c) abort();
  *c = plan;
  c->elements = NULL;
  isl_id *id = sj_id_owning(ctx, plan.mod ? "copy_flow" : "copy_in", c, copy_free);
  isl_set *inst;
  if (apart) {
    int npieces = (int)isl_map_list_n_map(pieces);
    isl_set_list *offsets = isl_set_list_alloc(ctx, npieces);
    for (int i = 0; i < npieces; i++)
      offsets =
          isl_set_list_add(offsets, clamp_offsets(isl_map_range(isl_map_list_get_map(pieces, i)),
                                                  plan.clamp, extents));
    c->elements = elements_schedule(offsets, steps, rank, k);
    inst = isl_set_set_tuple_id(isl_map_domain(elems), id);
    rank = 0; /* the instance: the tile coordinates alone */
  } else {
    c->clamp = 0;
    inst = isl_set_set_tuple_id(isl_set_flatten(isl_map_wrap(elems)), id);
  }
  isl_map_list_free(pieces);
  isl_union_set *dom = isl_union_set_from_set(inst);
  for (int d = 0; d <= n; d++) /* S_d = lo_d + block id d */
    dom = isl_union_set_intersect(
        dom, sj_bound_block(sj_coordinate(dom, n + 1 + rank - d), lo[d], k, d));
  isl_set *bound = isl_set_from_union_set(isl_union_set_copy(dom));
  isl_map *e = isl_map_from_domain_and_range(isl_set_copy(prefix), bound);
  e = isl_map_equate(e, isl_dim_in, 0, isl_dim_out, 0);
  *ext = *ext ? isl_union_map_add_map(*ext, e) : isl_union_map_from_map(e);
  return dom;
}

/* Whether the copy of piece ([L, S..] -> [t, e..]: a step t and a 1-D array's element e) is
 * better spread over the threads along its steps: fewer elements per step than a quarter of the
 * block (a rim of a tile, a few elements at each of many steps). */
static int spread_steps(__isl_keep isl_map *piece, const sj_kernel *k) {
  if (isl_map_dim(piece, isl_dim_out) != 2) return 0;
  isl_map *per_step = isl_map_move_dims(
      isl_map_copy(piece), isl_dim_in, (unsigned)isl_map_dim(piece, isl_dim_in), isl_dim_out, 0, 1);
  isl_fixed_box *box = isl_map_get_range_simple_fixed_box_hull(per_step);
  int narrow = 0;
  if (isl_fixed_box_is_valid(box) == isl_bool_true) {
    isl_multi_val *size = isl_fixed_box_get_size(box);
    isl_val *v = isl_multi_val_get_val(size, 0);
    narrow = isl_val_get_num_si(v) * 4 < (long)k->block[0];
    isl_val_free(v);
    isl_multi_val_free(size);
  }
  isl_fixed_box_free(box);
  isl_map_free(per_step);
  return narrow;
}

/* The loops of a copy over dom below node, but where they are apart (copy_domain). */
static __isl_give isl_schedule_node *copy_loops(__isl_take isl_schedule_node *node,
                                                __isl_take isl_union_set *dom, int rank, int steps,
                                                const sj_kernel *k, int apart) {
  if (!apart) return copy_bands(node, dom, rank, steps, k);
  isl_union_set_free(dom);
  return node;
}

/* The copy statement of elems ([L, S..] -> A), bound to the block's tile, as an extension of
 * the prefix schedule [L] (prefix: its universe) whose instances the threads share out:
 * extension - mark "threads" - filter - band [a]. Where flow (a full tile's flow-in in pieces,
 * copied as fc says, each piece a statement of its own) is not NULL, two versions under a
 * `full_tiles` mark as the steps have (sched/full_tiles.c): the flow-in for a full tile, the box
 * for any tile. */
static __isl_give isl_schedule_node *copy_graft(__isl_take isl_map *elems,
                                                __isl_take isl_map_list *flow,
                                                __isl_take isl_set *prefix, sj_copy box_copy,
                                                sj_copy fc, const long *extents, int n,
                                                const long *lo, const sj_kernel *k) {
  int rank = (int)isl_map_dim(elems, isl_dim_out), npieces = flow ? isl_map_list_n_map(flow) : 0;
  /* The box of a tile that is not full: its loops a thread runs alone (those of dimensions
   * not spread over the threads, where the kernel does not unroll that version, of many rows)
   * kept to the array, since there each element's test cost 4 instructions beside its copy
   * (heat-2d hybrid 1024^2 h=5 w=32x256: 0.85 of 20 per update). The innermost dimension's test
   * is the same for every row. The copies of an unrolled loop are each guarded anyway, more
   * dearly where its bounds are clamped (heat-2d hybrid h=3 w=8x256, rows spread over 2
   * threads: +0.54; split jacobi-2d: +0.1). */
  const sj_staged *s = &k->staged[box_copy.staged];
  long rows = 1;
  for (int d = 0; d < rank - 1; d++) rows *= s->size[d];
  for (int d = 0; d < rank - 1 && npieces && !k->unroll_partial && rows >= MANY_ROWS; d++)
    if ((rank - 1 - d >= 3 || k->block[rank - 1 - d] == 1) &&
        sj_window_may_leave(s->origin[d], s->ncoords, s->size[d], extents[d]))
      box_copy.clamp |= 1 << d;
  isl_union_map *ext = NULL;
  int apart[SJ_FLOW_MAX_PIECES], steps[SJ_FLOW_MAX_PIECES];
  static const int no_steps[1] = {0};
  isl_map_list *one = isl_map_list_from_map(elems);
  int box_apart = pieces_apart(one, box_copy);
  isl_union_set *box =
      copy_domain(one, no_steps, box_apart, prefix, box_copy, extents, n, lo, k, &ext);
  isl_union_set_list *pieces = isl_union_set_list_alloc(isl_set_get_ctx(prefix), npieces + 1);
  for (int i = 0; i < npieces && i < SJ_FLOW_MAX_PIECES; i++) {
    isl_map *piece = isl_map_list_get_map(flow, i);
    steps[i] = spread_steps(piece, k);
    isl_map_free(piece);
  }
  /* pieces apart: one copy statement, its pieces in sequence in its elements' schedule (for isl,
   * a statement in the kernel's tree costs far more than a piece of a copy's own) */
  if (npieces > 1 && pieces_apart(flow, fc)) {
    pieces = isl_union_set_list_add(pieces, copy_domain(isl_map_list_copy(flow), steps, 1, prefix,
                                                        fc, extents, n, lo, k, &ext));
    npieces = apart[0] = 1;
  } else {
    for (int i = 0; i < npieces; i++) {
      isl_map_list *piece = isl_map_list_from_map(isl_map_list_get_map(flow, i));
      apart[i] = pieces_apart(piece, fc);
      pieces = isl_union_set_list_add(
          pieces, copy_domain(piece, &steps[i], apart[i], prefix, fc, extents, n, lo, k, &ext));
    }
  }
  isl_map_list_free(flow);
  isl_set_free(prefix);
  isl_schedule_node *node = isl_schedule_node_child(isl_schedule_node_from_extension(ext), 0);
  if (!npieces) {
    isl_union_set_list_free(pieces);
    return isl_schedule_node_parent(copy_loops(node, box, rank, 0, k, box_apart));
  }
  isl_union_set *in = isl_union_set_list_union(isl_union_set_list_copy(pieces));
  node = sj_full_versions(node, in, isl_union_set_copy(box));
  /* the flow-in's pieces in sequence in the full tile's version */
  node = isl_schedule_node_child(isl_schedule_node_child(isl_schedule_node_child(node, 0), 0), 0);
  if (npieces > 1) node = isl_schedule_node_insert_sequence(node, isl_union_set_list_copy(pieces));
  for (int i = 0; i < npieces; i++) {
    if (npieces > 1) node = isl_schedule_node_child(isl_schedule_node_child(node, i), 0);
    node =
        copy_loops(node, isl_union_set_list_get_union_set(pieces, i), rank, steps[i], k, apart[i]);
    node = isl_schedule_node_parent(node);
    if (npieces > 1) node = isl_schedule_node_parent(node);
  }
  isl_union_set_list_free(pieces);
  /* up to the versions' sequence (from the pieces' sequence or the version mark), then the box
   * in the other version */
  for (int up = npieces > 1 ? 3 : 2; up > 0; up--) node = isl_schedule_node_parent(node);
  node = isl_schedule_node_child(isl_schedule_node_child(isl_schedule_node_child(node, 1), 0), 0);
  node = copy_loops(node, box, rank, 0, k, box_apart);
  /* the version mark, the filter, the sequence, the full_tiles mark, the extension */
  for (int up = 0; up < 5; up++) node = isl_schedule_node_parent(node);
  return node;
}

/* A barrier, as an extension of the prefix schedule (prefix: its universe). */
static __isl_give isl_schedule_node *sync_graft(__isl_take isl_set *prefix) {
  isl_ctx *ctx = isl_set_get_ctx(prefix);
  isl_set *sync = isl_set_universe(isl_space_set_alloc(ctx, 0, 0));
  sync = isl_set_set_tuple_id(sync, isl_id_alloc(ctx, "sync", (void *)&sj_sync_tag));
  isl_map *ext = isl_map_from_domain_and_range(prefix, sync);
  return isl_schedule_node_from_extension(isl_union_map_from_map(ext));
}

typedef struct stage_arg {
  const sj_model *m;
  int n;
  long budget, left; /* shared memory a block may have, what is left of it */
  const long *lo;
  sj_kernel *k;
  isl_union_set *dom;
  isl_union_map *back, *coords;
  isl_union_map *reads, *writes; /* the accesses, without the left-out dimensions */
  const div_dims *dd;            /* per array id */
  isl_union_set *full;           /* the full tiles' instances, or NULL */
  isl_map_list *in;              /* per staged array: what is copied in */
  isl_map_list **flow;           /* per staged array: a full tile's flow-in in pieces, or NULL */
  sj_copy *copies;               /* per staged array: how its flow-in is copied */
  sj_buf *desc;
} stage_arg;

/* Where every access of a statement to an array is a translation of one affine map of its
 * iterators (A[t % 2][i - 1][j + 1], a flat A[(j + 1) * nx + i]: dimension d is lin[d] . x
 * plus c), the footprint of a tile is the box of that map's image of the tile widened by the
 * range of c: one small box hull per statement instead of one over the union of every
 * access's footprint, which grows with the accesses (27 in heat-3d) and whose projections
 * have existentially quantified variables (a flat array's took isl seconds). */
enum { MAX_ITERS = SJ_STAGE_COEFS + 7 };
typedef struct shift {
  int nin;
  long lin[SJ_STAGE_MAX_RANK][MAX_ITERS];
  long cmin[SJ_STAGE_MAX_RANK], cmax[SJ_STAGE_MAX_RANK];
} shift;

static isl_stat one_piece(__isl_take isl_set *set, __isl_take isl_multi_aff *ma, void *user) {
  isl_multi_aff **out = user;
  isl_set_free(set);
  if (*out) { /* more than one piece */
    isl_multi_aff_free(ma);
    return isl_stat_error;
  }
  *out = ma;
  return isl_stat_ok;
}

__isl_give isl_multi_aff *sj_one_piece(__isl_take isl_pw_multi_aff *pma) {
  isl_multi_aff *ma = NULL;
  if (isl_pw_multi_aff_foreach_piece(pma, one_piece, &ma) < 0) ma = isl_multi_aff_free(ma);
  isl_pw_multi_aff_free(pma);
  return ma;
}

/* Into lin and c: dimension d of acc's element (without the dimensions mask leaves out) is
 * lin[d] . x + c[d] over acc's iterators x (*nin of them); -1 when it is not affine in them
 * alone. */
static int translation(const sj_access *acc, int mask, int *nin, long (*lin)[MAX_ITERS], long *c) {
  isl_multi_aff *ma = sj_one_piece(isl_pw_multi_aff_from_map(isl_map_copy(acc->rel)));
  int rc = ma ? 0 : -1;
  *nin = rc ? 0 : (int)isl_multi_aff_dim(ma, isl_dim_in);
  for (int d = 0, k = 0; !rc && d < acc->ref->sym->rank; d++) {
    if (mask >> d & 1) continue;
    isl_aff *aff = isl_multi_aff_get_aff(ma, d);
    long row[MAX_ITERS + 1] = {0};
    rc = *nin > MAX_ITERS || isl_aff_dim(aff, isl_dim_param) != 0 || sj_aff_row(aff, *nin, row);
    memcpy(lin[k], row + 1, sizeof lin[k]);
    c[k++] = row[0];
    isl_aff_free(aff);
  }
  isl_multi_aff_free(ma);
  return rc ? -1 : 0;
}

typedef struct find_arg {
  isl_id *id;
  isl_set *found;
} find_arg;

static isl_stat find_set(__isl_take isl_set *set, void *user) {
  find_arg *f = user;
  isl_id *id = isl_set_get_tuple_id(set);
  if (id == f->id && !f->found)
    f->found = set;
  else
    isl_set_free(set);
  isl_id_free(id);
  return isl_stat_ok;
}

/* [L, S..] -> [the iterators it lists (nit of them)] of stmt's instances in dom, the tiled
 * instances S[x, L, p, T, S0, .., Sn]: their projection, which isl finds faster than the
 * composition of the maps to and from the instances. */
static __isl_give isl_map *iterators_in_tiles(__isl_keep isl_union_set *dom, const sj_pstmt *stmt,
                                              int n, const int *it, int nit) {
  int depth = (int)isl_set_dim(stmt->domain, isl_dim_set);
  find_arg f = {isl_set_get_tuple_id(stmt->domain), NULL};
  isl_union_set_foreach_set(dom, find_set, &f);
  isl_id_free(f.id);
  if (!f.found) {
    isl_ctx *ctx = isl_union_set_get_ctx(dom);
    return isl_map_empty(isl_space_map_from_domain_and_range(isl_space_set_alloc(ctx, 0, n + 2),
                                                             isl_space_set_alloc(ctx, 0, nit)));
  }
  isl_map *m = isl_map_from_range(f.found);
  m = isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, depth, 1);     /* L */
  m = isl_map_project_out(m, isl_dim_out, depth, 2);                  /* p, T */
  m = isl_map_move_dims(m, isl_dim_in, 1, isl_dim_out, depth, n + 1); /* S.. */
  for (int x = depth - 1, k = nit - 1; x >= 0; x--)
    if (k >= 0 && it[k] == x)
      k--;
    else
      m = isl_map_project_out(m, isl_dim_out, x, 1);
  return isl_map_reset_tuple_id(m, isl_dim_out);
}

/* The box of sh's map over the instances of stmt in each tile, widened by sh, into row/size,
 * and those tiles; -1 when it has no fixed size at an integer affine origin. From the box of the
 * iterators the map uses: dimension d of the map, lin[d] . x, ranges from the sum of lin[d][x]
 * times the near end of x's range to that of the far ends. */
static int stmt_box(stage_arg *a, const sj_pstmt *stmt, int nk, const shift *sh,
                    long (*row)[SJ_STAGE_COEFS], long *size, isl_set **tiles) {
  *tiles = NULL;
  int it[MAX_ITERS], nit = 0;
  for (int x = 0; x < sh->nin; x++)
    for (int d = 0; d < nk; d++)
      if (sh->lin[d][x]) {
        it[nit++] = x;
        break;
      }
  isl_map *map = iterators_in_tiles(a->dom, stmt, a->n, it, nit);
  int rc = 1; /* no instance of the statement in this kernel */
  if (isl_map_is_empty(map) == isl_bool_false) {
    long lo[MAX_ITERS][SJ_STAGE_COEFS], len[MAX_ITERS];
    isl_fixed_box *box = isl_map_get_range_simple_fixed_box_hull(map);
    rc = isl_fixed_box_is_valid(box) == isl_bool_true ? 0 : -1;
    isl_multi_aff *origin = rc ? NULL : isl_fixed_box_get_offset(box);
    isl_multi_val *sizes = rc ? NULL : isl_fixed_box_get_size(box);
    for (int k = 0; !rc && k < nit; k++) {
      isl_aff *aff = isl_multi_aff_get_aff(origin, k);
      rc = sj_aff_row(aff, a->n + 2, lo[k]);
      isl_aff_free(aff);
      isl_val *v = isl_multi_val_get_val(sizes, k);
      len[k] = isl_val_get_num_si(v);
      isl_val_free(v);
    }
    for (int d = 0; !rc && d < nk; d++) {
      memset(row[d], 0, sizeof row[d]);
      row[d][0] = sh->cmin[d];
      size[d] = 1 + sh->cmax[d] - sh->cmin[d];
      for (int k = 0; k < nit; k++) {
        long c = sh->lin[d][it[k]];
        for (int j = 0; j < a->n + 3; j++) row[d][j] += c * lo[k][j];
        if (c < 0) row[d][0] += c * (len[k] - 1);
        size[d] += (c < 0 ? -c : c) * (len[k] - 1);
      }
    }
    isl_multi_aff_free(origin);
    isl_multi_val_free(sizes);
    isl_fixed_box_free(box);
    *tiles = isl_map_domain(isl_map_copy(map));
  }
  isl_map_free(map);
  return rc;
}

/* What the statements touching an array do in a kernel: write it, read it, and in which
 * tiles. */
typedef struct touch {
  int written, read;
  isl_set *tiles; /* [L, S..] */
  isl_map *boxes; /* [L, S..] -> element: the union of the statements' boxes */
} touch;

/* { c -> x : c in tiles, row[d](c) <= x[d] < row[d](c) + size[d] } (x: nk dimensions). */
static __isl_give isl_map *box_map(__isl_take isl_set *tiles, int nk,
                                   const long (*row)[SJ_STAGE_COEFS], const long *size) {
  isl_ctx *ctx = isl_set_get_ctx(tiles);
  int nc = (int)isl_set_dim(tiles, isl_dim_set);
  isl_map *map = isl_map_add_dims(isl_map_from_domain(tiles), isl_dim_out, (unsigned)nk);
  isl_local_space *ls = isl_local_space_from_space(isl_map_get_space(map));
  for (int d = 0; d < nk; d++)
    for (int far = 0; far < 2; far++) {
      /* near: x - row(c) >= 0; far: row(c) + size - 1 - x >= 0 */
      int sign = far ? 1 : -1;
      isl_constraint *c = isl_constraint_alloc_inequality(isl_local_space_copy(ls));
      c = isl_constraint_set_constant_val(
          c, isl_val_int_from_si(ctx, sign * row[d][0] + (far ? size[d] - 1 : 0)));
      for (int k = 0; k < nc; k++)
        c = isl_constraint_set_coefficient_val(c, isl_dim_in, k,
                                               isl_val_int_from_si(ctx, sign * row[d][1 + k]));
      c = isl_constraint_set_coefficient_si(c, isl_dim_out, d, -sign);
      map = isl_map_add_constraint(map, c);
    }
  isl_local_space_free(ls);
  return map;
}

/* Into sh: the translations of stmt's accesses to sym (its reads and writes in *reads,
 * *writes); 0 when it has none, 1 when it has some, -1 when one is not a translation. */
static int stmt_shift(const sj_model *m, const sj_pstmt *stmt, const sj_sym *sym, int mask, int nk,
                      shift *sh, int *reads, int *writes) {
  int any = 0;
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    if (acc->stmt != stmt || acc->ref->sym->id != sym->id) continue;
    *writes |= acc->is_write;
    *reads |= !acc->is_write;
    int nin;
    long lin[SJ_STAGE_MAX_RANK][MAX_ITERS], c[SJ_STAGE_MAX_RANK];
    if (translation(acc, mask, &nin, lin, c)) return -1;
    if (any && (nin != sh->nin || memcmp(lin, sh->lin, (size_t)nk * sizeof *lin))) return -1;
    sh->nin = nin;
    memcpy(sh->lin, lin, (size_t)nk * sizeof *lin);
    for (int d = 0; d < nk; d++) {
      sh->cmin[d] = any && sh->cmin[d] < c[d] ? sh->cmin[d] : c[d];
      sh->cmax[d] = any && sh->cmax[d] > c[d] ? sh->cmax[d] : c[d];
    }
    any = 1;
  }
  return any;
}

/* A statement's box of an array in the tiles where it runs (stmt_box). */
typedef struct stmt_boxed {
  long row[SJ_STAGE_MAX_RANK][SJ_STAGE_COEFS], size[SJ_STAGE_MAX_RANK];
  isl_set *tiles;
  int reads, writes;
  int apart; /* its origin moves otherwise than the array's box */
} stmt_boxed;

/* How many of its origin's coefficients on the tile coordinates are not 0. */
static int moving(const stmt_boxed *b, int nk, int ncoords) {
  int n = 0;
  for (int d = 0; d < nk; d++)
    for (int k = 1; k <= ncoords; k++) n += b->row[d][k] != 0;
  return n;
}

/* Whether b's box lies in the box row/size in every tile where b's statement runs. */
static isl_bool inside(const stmt_boxed *b, int nk, const long (*row)[SJ_STAGE_COEFS],
                       const long *size) {
  isl_map *mine =
      box_map(isl_set_copy(b->tiles), nk, (const long(*)[SJ_STAGE_COEFS])b->row, b->size);
  isl_map *all = box_map(isl_set_copy(b->tiles), nk, row, size);
  isl_bool in = isl_map_is_subset(mine, all);
  isl_map_free(mine);
  isl_map_free(all);
  return in;
}

/* The box of the accesses to sym by translations (see struct shift) into s, the dimensions
 * dd leaves out from dd, and what the statements do in t; -1 when some access is not one.
 * The box moves with the statement whose box moves with the most tile coordinates; another's
 * whose origin moves alike widens it, one whose box lies inside it in every tile it runs in
 * (a boundary column at a constant place) adds nothing. Where a statement's box is neither (the
 * parities of a swap, placed apart in a tile), t->boxes is their union, whose box the caller
 * asks isl for: a few boxes, where the union of the accesses' footprints has a variable per
 * flattened dimension, and took isl seconds. */
static int shifted_box(stage_arg *a, const sj_sym *sym, const div_dims *dd,
                       __isl_keep isl_space *kept, sj_staged *s, touch *t) {
  const sj_model *m = a->m;
  int nk = (int)isl_space_dim(kept, isl_dim_out), nboxes = 0, rc = 0, main = -1;
  *t = (touch){0, 0, NULL, NULL};
  /* add_staged bounds the rank; said again for the compiler, which cannot see it (-O3) */
  if (nk > SJ_STAGE_MAX_RANK) return -1;
  stmt_boxed *boxes = calloc((size_t)m->nstmts + 1, sizeof *boxes);
  if (!boxes) return -1;
  for (int st = 0; st < m->nstmts && rc >= 0; st++) {
    shift sh;
    stmt_boxed *b = &boxes[nboxes];
    *b = (stmt_boxed){0}; /* what a statement with no box left here */
    rc = stmt_shift(m, m->stmts[st], sym, dd->mask, nk, &sh, &b->reads, &b->writes);
    rc = rc > 0 ? stmt_box(a, m->stmts[st], nk, &sh, b->row, b->size, &b->tiles) : rc < 0 ? -1 : 1;
    if (b->tiles)
      t->tiles =
          t->tiles ? isl_set_union(t->tiles, isl_set_copy(b->tiles)) : isl_set_copy(b->tiles);
    if (rc) {
      b->tiles = isl_set_free(b->tiles);
      continue;
    }
    isl_map *box =
        box_map(isl_set_copy(b->tiles), nk, (const long(*)[SJ_STAGE_COEFS])b->row, b->size);
    t->boxes = t->boxes ? isl_map_union(t->boxes, box) : box;
    if (main < 0 || moving(b, nk, s->ncoords) > moving(&boxes[main], nk, s->ncoords)) main = nboxes;
    nboxes++;
  }
  long row[SJ_STAGE_MAX_RANK][SJ_STAGE_COEFS], size[SJ_STAGE_MAX_RANK];
  int differ = 0;
  if (rc >= 0 && main >= 0) {
    memcpy(row, boxes[main].row, sizeof row);
    memcpy(size, boxes[main].size, sizeof size);
    for (int i = 0; i < nboxes; i++) { /* those moving alike widen it */
      const stmt_boxed *b = &boxes[i];
      int alike = 1;
      for (int d = 0; d < nk; d++)
        for (int k = 1; k <= s->ncoords; k++) alike &= b->row[d][k] == row[d][k];
      for (int d = 0; alike && d < nk; d++) {
        long end = row[d][0] + size[d] > b->row[d][0] + b->size[d] ? row[d][0] + size[d]
                                                                   : b->row[d][0] + b->size[d];
        row[d][0] = row[d][0] < b->row[d][0] ? row[d][0] : b->row[d][0];
        size[d] = end - row[d][0];
      }
      t->written |= b->writes;
      t->read |= b->reads;
      boxes[i].apart = !alike;
    }
    for (int i = 0; i < nboxes && !differ; i++)
      if (boxes[i].apart)
        differ = inside(&boxes[i], nk, (const long(*)[SJ_STAGE_COEFS])row, size) != isl_bool_true;
  }
  for (int i = 0; i < nboxes; i++) isl_set_free(boxes[i].tiles);
  free(boxes);
  if (rc < 0 || main < 0) {
    t->tiles = isl_set_free(t->tiles);
    t->boxes = isl_map_free(t->boxes);
    return -1;
  }
  if (differ) return -1;
  t->boxes = isl_map_free(t->boxes);
  for (int d = 0, k = 0; d < s->rank; d++) {
    if (dd->mask >> d & 1) {
      for (int c = 0; c <= s->ncoords; c++) s->origin[d][c] = c ? 0 : dd->lo[d];
      s->size[d] = dd->hi[d] - dd->lo[d] + 1;
      continue;
    }
    memcpy(s->origin[d], row[k], sizeof row[k]);
    s->size[d] = size[k++];
  }
  return 0;
}

/* With JIT_CHECK_TILES (the tests), isl checks that s's box holds every element the tiles
 * touch, the exact footprint ([L, S..] -> element, in space); where it does not, an internal
 * isl error fails the compile. */
static void check_box(stage_arg *a, __isl_keep isl_space *space, const sj_staged *s) {
  if (!getenv("JIT_CHECK_TILES")) return;
  isl_union_map *r = footprint(a->dom, a->back, a->coords, a->m->reads);
  isl_union_map *w = footprint(a->dom, a->back, a->coords, a->m->writes);
  isl_map *foot = isl_map_union(isl_union_map_extract_map(r, isl_space_copy(space)),
                                isl_union_map_extract_map(w, isl_space_copy(space)));
  isl_union_map_free(r);
  isl_union_map_free(w);
  /* over every tile: the hull of the footprint's tiles took isl minutes where their
   * coordinates have divisions (a record's field read from a flat array's row) */
  isl_map *box =
      box_elements(isl_space_copy(space), isl_set_universe(isl_space_domain(isl_space_copy(space))),
                   s, sj_model_extents(a->m, s->array));
  if (isl_map_is_subset(foot, box) == isl_bool_false)
    isl_handle_error(a->m->ctx, isl_error_internal, "a staged box misses elements of its tile",
                     __FILE__, __LINE__);
  isl_map_free(box);
  isl_map_free(foot);
}

/* [L, S..] -> element (without the left-out dimensions: kept's range) of the reads, or the
 * writes, of kept's array. */
static __isl_give isl_map *array_footprint(stage_arg *a, __isl_keep isl_space *kept, int writes) {
  isl_union_set *array =
      isl_union_set_from_set(isl_set_universe(isl_space_range(isl_space_copy(kept))));
  isl_union_map *acc =
      isl_union_map_intersect_range(isl_union_map_copy(writes ? a->writes : a->reads), array);
  isl_union_map *foot = footprint(a->dom, a->back, a->coords, acc);
  isl_union_map_free(acc);
  isl_map *res = isl_union_map_extract_map(foot, isl_space_copy(kept));
  isl_union_map_free(foot);
  return res;
}

static void add_staged(stage_arg *a, const sj_sym *sym, __isl_keep isl_space *array) {
  sj_staged s = {.array = sym->id, .rank = sym->rank, .ncoords = a->n + 2};
  if (sym->rank < 1 || sym->rank > SJ_STAGE_MAX_RANK || s.ncoords + 1 > SJ_STAGE_COEFS) return;
  const div_dims *dd = &a->dd[sym->id];
  isl_space *space = isl_space_map_from_domain_and_range(
      isl_space_set_alloc(isl_space_get_ctx(array), 0, s.ncoords), isl_space_copy(array));
  isl_space *kept = isl_space_copy(space);
  for (int d = s.rank - 1; d >= 0; d--)
    if (dd->mask >> d & 1) kept = isl_space_drop_dims(kept, isl_dim_out, d, 1);
  if (isl_space_has_tuple_id(array, isl_dim_set) == isl_bool_true) /* dropped with a dimension */
    kept = isl_space_set_tuple_id(kept, isl_dim_out, isl_space_get_tuple_id(array, isl_dim_set));
  /* the footprint (the union of every access's) only where the boxes by translation do not
   * apply */
  touch t;
  int rc = shifted_box(a, sym, dd, kept, &s, &t);
  if (rc && t.boxes) {
    rc = t.written ? box_of(t.boxes, dd, &s) : -1;
    isl_map_free(t.boxes);
  } else if (rc) {
    isl_map *r = array_footprint(a, kept, 0), *w = array_footprint(a, kept, 1);
    t.written = isl_map_is_empty(w) == isl_bool_false;
    t.read = isl_map_is_empty(r) == isl_bool_false;
    isl_map *all = isl_map_union(r, w);
    rc = t.written ? box_of(all, dd, &s) : -1;
    t.tiles = isl_map_domain(all);
  }
  long bytes = sj_type_size(sym->type);
  int boxed = t.written && rc == 0;
  if (boxed) {
    check_box(a, space, &s);
    sj_buf_printf(a->desc, "%s %s", a->desc->len ? "," : "", sym->name);
    for (int d = 0; d < s.rank; d++) {
      bytes *= s.size[d];
      sj_buf_printf(a->desc, "%s%ld", d ? "x" : " ", s.size[d]);
    }
    bytes = sj_shared_bytes(bytes);
    if (bytes > a->budget)
      sj_buf_printf(a->desc, " (%ld bytes: over the %ld a block may stage, in global memory)",
                    bytes, a->budget);
    else if (bytes > a->left)
      sj_buf_printf(a->desc, " (%ld bytes: over the %ld left, in global memory)", bytes, a->left);
  }
  if (boxed && bytes <= a->left) {
    a->left -= bytes;
    a->k->staged = realloc(a->k->staged, (size_t)(a->k->nstaged + 1) * sizeof s);
    if (!a->k->staged) abort();
    a->k->staged[a->k->nstaged++] = s;
    isl_map *in = t.read ? box_offsets(isl_space_copy(space), isl_set_copy(t.tiles), &s)
                         : isl_map_empty(isl_space_copy(space));
    a->in = isl_map_list_add(a->in, in);
    sj_copy *c = &a->copies[a->k->nstaged - 1];
    *c = (sj_copy){.tag = SJ_ID_COPY, .staged = a->k->nstaged - 1};
    isl_map_list *flow = t.read && sj_flow_in_enabled()
                             ? sj_flow_in(a->m, sym, dd->mask, (int)(dd->hi[0] + 1), a->full,
                                          a->back, a->coords, a->reads, a->writes, kept, &s, c)
                             : NULL;
    if (flow && isl_map_list_n_map(flow) > SJ_FLOW_MAX_PIECES) flow = isl_map_list_free(flow);
    if (flow)
      sj_buf_printf(a->desc, " (full tiles: flow-in in %d pieces)", isl_map_list_n_map(flow));
    a->flow[a->k->nstaged - 1] = flow;
  }
  isl_set_free(t.tiles);
  isl_space_free(space);
  isl_space_free(kept);
}

__isl_give isl_schedule_node *sj_stage_tiles(__isl_take isl_schedule_node *node, const sj_model *m,
                                             __isl_keep isl_union_set *dom,
                                             __isl_keep isl_union_map *back, int n, const long *lo,
                                             sj_kernel *k, long budget, __isl_keep isl_set *full,
                                             sj_buf *desc) {
  isl_ctx *ctx = m->ctx;
  div_dims *dd = calloc((size_t)m->fn->narrays + 1, sizeof *dd);
  char *seen = calloc((size_t)m->fn->narrays + 1, 1);
  if (!dd || !seen) abort();
  for (int i = 0; i < m->naccesses; i++) {
    const sj_sym *sym = m->accesses[i].ref->sym;
    if (m->accesses[i].is_write && sym->id < m->fn->narrays && !seen[sym->id]++)
      find_div_dims(m, sym, &dd[sym->id]);
  }
  memset(seen, 0, (size_t)m->fn->narrays + 1);
  isl_union_map *coords = tile_coords(dom, n);
  stage_arg a = {
      m,
      n,
      budget,
      budget,
      lo,
      k,
      dom,
      back,
      coords,
      accesses_kept(m, 0, dd),
      accesses_kept(m, 1, dd),
      dd,
      full ? isl_union_set_intersect(sj_full_filter(full, dom, n), isl_union_set_copy(dom)) : NULL,
      isl_map_list_alloc(ctx, 1),
      calloc((size_t)m->fn->narrays + 1, sizeof(isl_map_list *)),
      calloc((size_t)m->fn->narrays + 1, sizeof(sj_copy)),
      desc};
  if (!a.copies || !a.flow) abort();
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    const sj_sym *sym = acc->ref->sym;
    if (!acc->is_write || sym->id >= m->fn->narrays || seen[sym->id]) continue;
    seen[sym->id] = 1;
    isl_space *array = isl_space_range(isl_map_get_space(acc->rel));
    add_staged(&a, sym, array);
    isl_space_free(array);
  }
  free(seen);
  free(dd);
  isl_union_map_free(coords);
  isl_union_map_free(a.reads);
  isl_union_map_free(a.writes);
  long used = budget - a.left;
  if (k->nstaged)
    sj_buf_printf(desc, " staged in %ld bytes of dynamic shared memory%s", used,
                  used > SJ_SHARED_STATIC ? " (above 48 KB: the kernel opts in)" : "");
  isl_set *outer = isl_set_from_union_set(
      isl_union_map_range(isl_schedule_node_get_prefix_schedule_union_map(node)));
  isl_set *prefix = isl_set_universe(isl_set_get_space(outer));
  isl_set_free(outer);
  for (int i = 0; i < k->nstaged && node; i++) {
    isl_map *in = isl_map_list_get_map(a.in, i);
    isl_map_list *flow = a.flow[i];
    sj_copy box = {.tag = SJ_ID_COPY, .staged = i, .offsets = 1, .clip = 1};
    memcpy(box.origin, k->staged[i].origin, sizeof box.origin);
    if (isl_map_is_empty(in) == isl_bool_false)
      node = isl_schedule_node_graft_before(
          node, copy_graft(in, flow, isl_set_copy(prefix), box, a.copies[i],
                           sj_model_extents(m, k->staged[i].array), n, lo, k));
    else
      isl_map_free(in), isl_map_list_free(flow);
  }
  if (k->nstaged) node = isl_schedule_node_graft_before(node, sync_graft(isl_set_copy(prefix)));
  isl_set_free(prefix);
  isl_map_list_free(a.in);
  free(a.flow);
  isl_union_set_free(a.full);
  free(a.copies);
  return k->nstaged ? isl_schedule_node_parent(isl_schedule_node_parent(node)) : node;
}
