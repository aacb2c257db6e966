/* sched/flow_rect.c: a full tile's flow-in over 2-D planes copied as rectangles. For several
 * shapes ([a, e0, e1]: steps a of a double buffer, mod 2, and the elements each step reads
 * first), the rectangles of each plane are disjoint, cover the plane's elements and stay within
 * their hull, and the large holes of the hull (elements no step reads) are left out. */
#include <stdio.h>

#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "sched/flow_rect.h"

static int failures;

static void check(int ok, const char *name, const char *what) {
  if (ok) return;
  printf("FAIL %s: %s\n", name, what);
  failures++;
}

static long count(__isl_take isl_set *set) {
  isl_val *v = isl_set_count_val(set);
  long n = isl_val_get_num_si(v);
  isl_val_free(v);
  isl_set_free(set);
  return n;
}

/* The plane of residue r (its steps a = first + r + 2k) of [a, e0, e1], as [e0, e1]. */
static __isl_give isl_set *plane(__isl_keep isl_set *shape, int r) {
  isl_set *s =
      isl_set_read_from_str(isl_set_get_ctx(shape), r ? "{ [a, e0, e1] : exists k : a = 2k + 1 }"
                                                      : "{ [a, e0, e1] : exists k : a = 2k }");
  s = isl_set_intersect(s, isl_set_copy(shape));
  return isl_set_project_out(s, isl_dim_set, 0, 1);
}

/* most: the most elements the pieces of a plane may copy (holes found), -1: no bound. */
static void one(isl_ctx *ctx, const char *name, const char *text, long most) {
  isl_set *shape = isl_set_read_from_str(ctx, text);
  isl_set_list *pieces = sj_flow_rects(isl_set_copy(shape), 2);
  check(pieces != NULL, name, "no rectangles");
  long copied = 0;
  isl_set *cover[2] = {
      isl_set_empty(isl_space_drop_dims(isl_set_get_space(shape), isl_dim_set, 0, 1)), NULL};
  cover[1] = isl_set_copy(cover[0]);
  int n = pieces ? isl_set_list_n_set(pieces) : 0;
  for (int i = 0; i < n; i++) {
    isl_set *p = isl_set_list_get_set(pieces, i);
    isl_set *step = isl_set_project_out(isl_set_copy(p), isl_dim_set, 1, 2);
    isl_val *a = isl_set_plain_get_val_if_fixed(step, isl_dim_set, 0);
    int r = isl_val_is_int(a) ? (int)(isl_val_get_num_si(a) & 1) : -1;
    check(r >= 0, name, "a piece is not at one step");
    isl_val_free(a);
    isl_set_free(step);
    isl_set *elems = isl_set_project_out(p, isl_dim_set, 0, 1);
    copied += count(isl_set_copy(elems));
    if (r < 0) {
      isl_set_free(elems);
      continue;
    }
    isl_set *both = isl_set_intersect(isl_set_copy(cover[r]), isl_set_copy(elems));
    check(isl_set_is_empty(both) == isl_bool_true, name, "two pieces of a plane overlap");
    isl_set_free(both);
    cover[r] = isl_set_union(cover[r], elems);
  }
  for (int r = 0; r < 2; r++) {
    isl_set *want = plane(shape, r);
    check(isl_set_is_subset(want, cover[r]) == isl_bool_true, name, "an element is not copied");
    isl_set *box = isl_set_universe(isl_set_get_space(want));
    for (int d = 0; d < 2; d++) {
      long lo, hi;
      check(!sj_set_dim_range(want, d, &lo, &hi), name, "no range");
      box = isl_set_lower_bound_si(box, isl_dim_set, d, (int)lo);
      box = isl_set_upper_bound_si(box, isl_dim_set, d, (int)hi);
    }
    check(isl_set_is_subset(cover[r], box) == isl_bool_true, name, "a piece leaves the hull");
    isl_set_free(box);
    isl_set_free(want);
    isl_set_free(cover[r]);
  }
  check(most < 0 || copied <= most, name, "a large hole was copied");
  if (most >= 0 && copied > most) printf("  %s: %ld copied, at most %ld\n", name, copied, most);
  isl_set_list_free(pieces);
  isl_set_free(shape);
}

int main(void) {
  isl_ctx *ctx = isl_ctx_alloc();
  /* a full rectangle at step 0: one piece, nothing more */
  one(ctx, "rectangle", "{ [0, e0, e1] : 0 <= e0 < 10 and 0 <= e1 < 40 }", 400);
  /* a hexagon's first step: the hull less its corners (small holes: copied) */
  one(ctx, "hexagon",
      "{ [0, e0, e1] : 0 <= e0 <= 20 and 0 <= e1 <= 30 and e0 + e1 >= 3 and e1 - e0 <= 28 }",
      21 * 31);
  /* rims at two steps of one plane with an empty band of rows between them: the band and the
   * columns between the rims are holes */
  one(ctx, "rims",
      "{ [a, e0, e1] : a = 0 and 0 <= e0 <= 47 and ((e0 >= 32 and -31 + e0 <= e1 <= 94 - e0) or "
      "(e0 <= 15 and 16 - e0 <= e1 <= 47 + e0)); [a, e0, e1] : a = 1 and 0 <= e1 <= 63 and "
      "((48 <= e1 <= 94 - e0 and e1 <= 47 + e0) or (e1 >= -31 + e0 and 16 - e0 <= e1 <= 15)) }",
      48 * 62 - 16 * 62 + 46 * 64 - 46 * 32);
  /* a plane read at several steps (a column beside a parallelogram at steps 0 and 2) */
  one(ctx, "columns",
      "{ [a, e0, e1] : (a = 0 or a = 2) and 0 <= e0 < 30 and (e1 = a or e1 = 70 + a) }", -1);
  isl_ctx_free(ctx);
  if (failures) return 1;
  printf("flow_rect: ok\n");
  return 0;
}
