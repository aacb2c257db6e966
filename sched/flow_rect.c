/* A full tile's flow-in (sched/flow_in.c) over 2-D planes, copied as a few rectangles per
 * plane of the double buffer rather than in its exact pieces.
 *
 * Why: a hexagonal tile's flow-in is its first step's read region and, at each later step,
 * rims along the hexagon's sloped sides and the parallelogram's moving edge: pieces whose row
 * bounds depend on the column (the hexagon's corners), scanned as loops with moving bounds by
 * every thread of the block. That doubled the instructions of jacobi-2d (hybrid h=7 w=32x128).
 *
 * Why a rectangle is as good: which step reads an element decides only its plane, and every
 * copy runs before the tile's first step, so copying the plane's elements at one step of that
 * plane reads the same global values. Copying more of a plane than the flow-in is correct too
 * (the box copy-in copies all of it): an element the tile writes before reading it is
 * overwritten first, one it never reads is never used, and every rectangle lies within the
 * ranges of elements the tile reads, so within its box and the array. The rectangles of a
 * plane are disjoint, so no two threads write one shared element. Per plane: the rectangle
 * hull of its elements less at most two large rectangles of elements it needs not copy (the
 * interior its steps write before reading: most of the second plane, the bands beside the
 * first step's rows in the first). */
#include "sched/flow_rect.h"

#include <isl/constraint.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <limits.h>
#include <stdlib.h>

/* Holes smaller than this many elements are copied (their rectangles would cost more
 * instructions than the loads they save). */
#define SJ_FLOW_MIN_HOLE 64
#define SJ_FLOW_HOLES 2
/* The most rows of a plane's hull scanned for holes. */
#define SJ_FLOW_MAX_SIDE 1024
/* The most cells of a plane's hull searched for holes (more than any shared memory holds). */
#define SJ_FLOW_MAX_CELLS (1L << 22)

/* The rectangle lo..hi (2 dimensions) in space. */
static __isl_give isl_set *rect(__isl_take isl_space *space, const long *lo, const long *hi) {
  isl_set *s = isl_set_universe(space);
  for (int d = 0; d < 2; d++) {
    s = isl_set_lower_bound_si(s, isl_dim_set, d, (int)lo[d]);
    s = isl_set_upper_bound_si(s, isl_dim_set, d, (int)hi[d]);
  }
  return s;
}

/* A plane's hull as a grid of cells: rows lo[0]..lo[0] + n[0] - 1, columns likewise. Kept
 * in C rather than as isl sets: the hole search asks, row by row, which run of free cells holds
 * one column, which took isl some 20 ms per 2-D tile shape (most of a hybrid compile's flow-in). */
enum { SJ_CELL_FREE, SJ_CELL_ELEMENT, SJ_CELL_HOLE };

typedef struct grid {
  long lo[2], n[2];
  unsigned char *cell;
} grid;

static unsigned char *cell_at(grid *g, long r, long c) {
  return &g->cell[(r - g->lo[0]) * g->n[1] + (c - g->lo[1])];
}

static isl_stat mark_point(__isl_take isl_point *pt, void *user) {
  grid *g = user;
  long x[2];
  for (int d = 0; d < 2; d++) {
    isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, d);
    x[d] = isl_val_get_num_si(v);
    isl_val_free(v);
  }
  isl_point_free(pt);
  *cell_at(g, x[0], x[1]) = SJ_CELL_ELEMENT;
  return isl_stat_ok;
}

typedef struct halfplane {
  long a, b, k; /* a r + b c + k >= 0, or == 0 */
  int eq;
} halfplane;

static isl_stat add_halfplane(__isl_take isl_constraint *c, void *user) {
  halfplane **h = user;
  isl_val *v[3] = {isl_constraint_get_coefficient_val(c, isl_dim_set, 0),
                   isl_constraint_get_coefficient_val(c, isl_dim_set, 1),
                   isl_constraint_get_constant_val(c)};
  (*h)->a = isl_val_get_num_si(v[0]);
  (*h)->b = isl_val_get_num_si(v[1]);
  (*h)->k = isl_val_get_num_si(v[2]);
  (*h)->eq = isl_constraint_is_equality(c) == isl_bool_true;
  (*h)++;
  for (int i = 0; i < 3; i++) isl_val_free(v[i]);
  isl_constraint_free(c);
  return isl_stat_ok;
}

/* Marks the cells of one piece of the plane's elements: by its constraints where it has no
 * local variables, else point by point. */
static isl_stat mark_piece(__isl_take isl_basic_set *bset, void *user) {
  grid *g = user;
  isl_size ndiv = isl_basic_set_dim(bset, isl_dim_div);
  isl_size ncon = isl_basic_set_n_constraint(bset);
  if (ndiv < 0 || ncon < 0) {
    isl_basic_set_free(bset);
    return isl_stat_error;
  }
  if (ndiv > 0) {
    isl_set *set = isl_set_from_basic_set(bset);
    isl_stat st = isl_set_foreach_point(set, mark_point, g);
    isl_set_free(set);
    return st;
  }
  halfplane *hs = malloc(((size_t)ncon + 1) * sizeof(*hs)), *end = hs;
  isl_stat st = hs ? isl_basic_set_foreach_constraint(bset, add_halfplane, &end) : isl_stat_error;
  isl_basic_set_free(bset);
  for (long r = g->lo[0]; st == isl_stat_ok && r < g->lo[0] + g->n[0]; r++)
    for (long c = g->lo[1]; c < g->lo[1] + g->n[1]; c++) {
      const halfplane *h = hs;
      for (; h < end; h++) {
        long v = h->a * r + h->b * c + h->k;
        if (v < 0 || (h->eq && v != 0)) break;
      }
      if (h == end) *cell_at(g, r, c) = SJ_CELL_ELEMENT;
    }
  free(hs);
  return st;
}

/* The largest rectangle of free cells whose columns hold the middle column of the free cells'
 * range: per row the run of free cells holding that column, then the best range of rows (the
 * runs' intersection times the rows). Found: its cells become a hole and 1 is returned; 0 where
 * it has fewer than SJ_FLOW_MIN_HOLE elements. */
static int hole(grid *g, long *bl, long *bh) {
  long r0 = LONG_MAX, r1 = LONG_MIN, c0 = LONG_MAX, c1 = LONG_MIN;
  for (long r = g->lo[0]; r < g->lo[0] + g->n[0]; r++)
    for (long c = g->lo[1]; c < g->lo[1] + g->n[1]; c++) {
      if (*cell_at(g, r, c) != SJ_CELL_FREE) continue;
      r0 = r < r0 ? r : r0, r1 = r > r1 ? r : r1;
      c0 = c < c0 ? c : c0, c1 = c > c1 ? c : c1;
    }
  if (r0 > r1) return 0; /* no free cell; at most SJ_FLOW_MAX_SIDE rows (cover) */
  long n = r1 - r0 + 1, mid = (c0 + c1) / 2, lo[SJ_FLOW_MAX_SIDE], hi[SJ_FLOW_MAX_SIDE];
  for (long x = 0; x < n; x++) {
    lo[x] = 1, hi[x] = 0;
    if (*cell_at(g, r0 + x, mid) != SJ_CELL_FREE) continue;
    lo[x] = hi[x] = mid;
    while (lo[x] > c0 && *cell_at(g, r0 + x, lo[x] - 1) == SJ_CELL_FREE) lo[x]--;
    while (hi[x] < c1 && *cell_at(g, r0 + x, hi[x] + 1) == SJ_CELL_FREE) hi[x]++;
  }
  long best = 0;
  for (long a = 0; a < n; a++) {
    long l = lo[a], h = hi[a];
    for (long b = a; b < n && l <= h; b++) {
      l = lo[b] > l ? lo[b] : l;
      h = hi[b] < h ? hi[b] : h;
      if (l <= h && (b - a + 1) * (h - l + 1) > best) {
        best = (b - a + 1) * (h - l + 1);
        bl[0] = r0 + a, bh[0] = r0 + b, bl[1] = l, bh[1] = h;
      }
    }
  }
  if (best < SJ_FLOW_MIN_HOLE) return 0;
  for (long r = bl[0]; r <= bh[0]; r++)
    for (long c = bl[1]; c <= bh[1]; c++) *cell_at(g, r, c) = SJ_CELL_HOLE;
  return 1;
}

static isl_stat add_piece(__isl_take isl_basic_set *bset, void *user) {
  isl_set_list **list = user;
  *list = isl_set_list_add(*list, isl_set_from_basic_set(bset));
  return *list ? isl_stat_ok : isl_stat_error;
}

/* The rectangles of plane elements (2-D) at step a: its hull less its holes, as [a, e..]
 * pieces added to list. */
static __isl_give isl_set_list *cover(__isl_take isl_set *elems, long a,
                                      __isl_take isl_set_list *list) {
  long lo[2], hi[2];
  if (isl_set_dim(elems, isl_dim_param) != 0 || sj_set_dim_range(elems, 0, &lo[0], &hi[0]) ||
      sj_set_dim_range(elems, 1, &lo[1], &hi[1])) {
    isl_set_free(elems);
    return isl_set_list_free(list);
  }
  isl_set *copy = rect(isl_set_get_space(elems), lo, hi);
  grid g = {{lo[0], lo[1]}, {hi[0] - lo[0] + 1, hi[1] - lo[1] + 1}, NULL};
  if (g.n[0] < SJ_FLOW_MAX_SIDE && g.n[1] <= SJ_FLOW_MAX_CELLS / g.n[0])
    g.cell = calloc((size_t)(g.n[0] * g.n[1]), 1);
  if (g.cell && isl_set_foreach_basic_set(elems, mark_piece, &g) < 0) {
    isl_set_free(copy);
    copy = NULL;
  }
  long bl[2], bh[2];
  for (int k = 0; copy && g.cell && k < SJ_FLOW_HOLES && hole(&g, bl, bh); k++)
    copy = isl_set_subtract(copy, rect(isl_set_get_space(elems), bl, bh));
  free(g.cell);
  isl_set_free(elems);
  copy = isl_set_coalesce(isl_set_make_disjoint(copy));
  copy = isl_set_fix_si(isl_set_insert_dims(copy, isl_dim_set, 0, 1), isl_dim_set, 0, (int)a);
  if (isl_set_foreach_basic_set(copy, add_piece, &list) < 0) list = isl_set_list_free(list);
  isl_set_free(copy);
  return list;
}

__isl_give isl_set_list *sj_flow_rects(__isl_take isl_set *shape, int mod) {
  long lo, hi;
  if (isl_set_dim(shape, isl_dim_set) != 3 || sj_set_dim_range(shape, 0, &lo, &hi)) {
    isl_set_free(shape);
    return NULL;
  }
  isl_set_list *list = isl_set_list_alloc(isl_set_get_ctx(shape), 2 * mod);
  for (int r = 0; r < mod && list; r++) {
    isl_space *elems = isl_space_drop_dims(isl_set_get_space(shape), isl_dim_set, 0, 1);
    isl_set *plane = isl_set_empty(elems);
    for (long a = lo + r; a <= hi; a += mod) {
      isl_set *slice = isl_set_fix_si(isl_set_copy(shape), isl_dim_set, 0, (int)a);
      plane = isl_set_union(plane, isl_set_project_out(slice, isl_dim_set, 0, 1));
    }
    plane = isl_set_coalesce(plane);
    if (isl_set_is_empty(plane) == isl_bool_false)
      list = cover(plane, lo + r, list);
    else
      isl_set_free(plane);
  }
  isl_set_free(shape);
  return list;
}
