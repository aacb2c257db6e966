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

#include <isl/set.h>
#include <isl/space.h>

/* Holes smaller than this many elements are copied (their rectangles would cost more
 * instructions than the loads they save). */
#define SJ_FLOW_MIN_HOLE 64
#define SJ_FLOW_HOLES 2
/* The longest side of a plane's hull scanned for a hole. */
#define SJ_FLOW_MAX_SIDE 1024

/* The rectangle lo..hi (2 dimensions) in space. */
static __isl_give isl_set *rect(__isl_take isl_space *space, const long *lo, const long *hi) {
  isl_set *s = isl_set_universe(space);
  for (int d = 0; d < 2; d++) {
    s = isl_set_lower_bound_si(s, isl_dim_set, d, (int)lo[d]);
    s = isl_set_upper_bound_si(s, isl_dim_set, d, (int)hi[d]);
  }
  return s;
}

/* Into *lo, *hi: the run of consecutive integers of the 1-D set s (taken) holding c, lo > hi
 * where c is not in s. */
static void run_at(__isl_take isl_set *s, long c, long *lo, long *hi) {
  *lo = 1, *hi = 0;
  isl_set *at = isl_set_fix_si(isl_set_copy(s), isl_dim_set, 0, (int)c);
  isl_bool in = isl_set_is_empty(at);
  isl_set_free(at);
  long smin, smax;
  if (in != isl_bool_false || sj_set_dim_range(s, 0, &smin, &smax)) {
    isl_set_free(s);
    return;
  }
  isl_set *gap = isl_set_complement(s);
  isl_set *below = isl_set_upper_bound_si(isl_set_copy(gap), isl_dim_set, 0, (int)c - 1);
  isl_set *above = isl_set_lower_bound_si(gap, isl_dim_set, 0, (int)c + 1);
  below = isl_set_lower_bound_si(below, isl_dim_set, 0, (int)smin);
  above = isl_set_upper_bound_si(above, isl_dim_set, 0, (int)smax);
  long blo, bhi, alo, ahi;
  *lo = !sj_set_dim_range(below, 0, &blo, &bhi) && blo <= bhi ? bhi + 1 : smin;
  *hi = !sj_set_dim_range(above, 0, &alo, &ahi) && alo <= ahi ? alo - 1 : smax;
  isl_set_free(below);
  isl_set_free(above);
}

/* The largest rectangle of free (2-D) whose columns hold the middle column of free: per row
 * the run holding that column, then the best range of rows (the runs' intersection times the
 * rows). NULL where it has fewer than SJ_FLOW_MIN_HOLE elements. */
static __isl_give isl_set *hole(__isl_keep isl_set *free) {
  long r0, r1, c0, c1;
  if (isl_set_is_empty(free) != isl_bool_false || sj_set_dim_range(free, 0, &r0, &r1) ||
      sj_set_dim_range(free, 1, &c0, &c1) || r1 - r0 >= SJ_FLOW_MAX_SIDE)
    return NULL;
  long n = r1 - r0 + 1, mid = (c0 + c1) / 2, lo[SJ_FLOW_MAX_SIDE], hi[SJ_FLOW_MAX_SIDE];
  for (long x = 0; x < n; x++) {
    isl_set *row = isl_set_fix_si(isl_set_copy(free), isl_dim_set, 0, (int)(r0 + x));
    run_at(isl_set_project_out(row, isl_dim_set, 0, 1), mid, &lo[x], &hi[x]);
  }
  long best = 0, bl[2] = {0, 0}, bh[2] = {-1, -1};
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
  return best >= SJ_FLOW_MIN_HOLE ? rect(isl_set_get_space(free), bl, bh) : NULL;
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
  if (sj_set_dim_range(elems, 0, &lo[0], &hi[0]) || sj_set_dim_range(elems, 1, &lo[1], &hi[1])) {
    isl_set_free(elems);
    return isl_set_list_free(list);
  }
  isl_set *hull = rect(isl_set_get_space(elems), lo, hi), *copy = isl_set_copy(hull);
  isl_set *free = isl_set_subtract(hull, elems);
  for (int k = 0; k < SJ_FLOW_HOLES; k++) {
    isl_set *h = hole(free);
    if (!h) break;
    free = isl_set_subtract(free, isl_set_copy(h));
    copy = isl_set_subtract(copy, h);
  }
  isl_set_free(free);
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
