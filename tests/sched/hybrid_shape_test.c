/* Hybrid and split tiling geometry: over a box of the folded space, the tiles of the colors
 * (hybrid: two phases) cover every point exactly once, and for every distance of the dependence
 * cone, the tile of the sink comes in a later wavefront than the source's, or is the same tile: the
 * tiles of one wavefront are independent and the wavefronts run in order. Several heights, widths,
 * slopes (symmetric, asymmetric, rational) and dimensions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>

#include "sched/hybrid.h"

static int failures;

/* The distances of a cone: dt in 1..2, ds0 in [-down dt, up dt], ds_i in [-skew_i dt, 2]. */
static __isl_give isl_map *cone_relation(isl_ctx *ctx, const sj_cone *c) {
  sj_buf s = {0};
  const char *names[] = {"s0", "s1", "s2"};
  sj_buf_puts(&s, "{ [t");
  for (int i = 0; i <= c->n; i++) sj_buf_printf(&s, ", %s", names[i]);
  sj_buf_puts(&s, "] -> [t2");
  for (int i = 0; i <= c->n; i++) sj_buf_printf(&s, ", %s2", names[i]);
  sj_buf_printf(&s,
                "] : 1 <= t2 - t <= 2 and %ld*(s02 - s0) <= %ld*(t2 - t) and "
                "%ld*(s0 - s02) <= %ld*(t2 - t)",
                c->up_den, c->up_num, c->down_den, c->down_num);
  for (int i = 1; i <= c->n; i++)
    sj_buf_printf(&s, " and %ld*(%s - %s2) <= %ld*(t2 - t) and %s2 - %s <= 2", c->skew_den[i],
                  names[i], names[i], c->skew_num[i], names[i], names[i]);
  sj_buf_puts(&s, " }");
  isl_map *m = isl_map_read_from_str(ctx, s.data);
  sj_buf_free(&s);
  return m;
}

static __isl_give isl_set *box(isl_ctx *ctx, int n) {
  const char *text[] = {"{ [t, s0] : 0 <= t < 40 and -30 <= s0 < 50 }",
                        "{ [t, s0, s1] : 0 <= t < 24 and -20 <= s0 < 30 and 0 <= s1 < 40 }",
                        "{ [t, s0, s1, s2] : 0 <= t < 12 and 0 <= s0 < 20 and 0 <= s1 < 12 "
                        "and 0 <= s2 < 18 }"};
  return isl_set_read_from_str(ctx, text[n]);
}

/* tiles: F -> [L, c, T, S0..] of every color c. Over the box every point is in exactly one
 * tile, and a dependence x -> y is fine when (L, c)(x) < (L, c)(y) lexicographically or x
 * and y are in the same tile. Takes tiles. */
static void check_tiles(isl_ctx *ctx, const sj_cone *c, __isl_take isl_map *tiles, const char *what,
                        const char *kind, int h, long w0) {
  isl_set *b = box(ctx, c->n);
  tiles = isl_map_intersect_domain(tiles, isl_set_copy(b));
  isl_bool single = isl_map_is_single_valued(tiles);
  isl_set *covered = isl_map_domain(isl_map_copy(tiles));
  isl_bool covers = isl_set_is_equal(covered, b);
  isl_set_free(covered);
  if (single != isl_bool_true || covers != isl_bool_true) {
    printf("FAIL %s %s h=%d w0=%ld: tiles %s\n", kind, what, h, w0,
           single != isl_bool_true ? "overlap" : "do not cover the box");
    failures++;
  }
  isl_map *dep =
      isl_map_intersect_range(isl_map_intersect_domain(cone_relation(ctx, c), isl_set_copy(b)), b);
  isl_map *source = isl_map_reverse(isl_map_copy(tiles)); /* tile -> its points */
  isl_map *between = isl_map_apply_range(source, isl_map_apply_range(dep, tiles));
  sj_buf s = {0};
  sj_buf_puts(&s, "{ [L, p, T");
  for (int i = 0; i <= c->n; i++) sj_buf_printf(&s, ", a%d", i);
  sj_buf_puts(&s, "] -> [L2, p2, T2");
  for (int i = 0; i <= c->n; i++) sj_buf_printf(&s, ", b%d", i);
  sj_buf_puts(&s, "] : L2 > L or (L2 = L and p2 > p) or (L2 = L and p2 = p and T2 = T");
  for (int i = 0; i <= c->n; i++) sj_buf_printf(&s, " and b%d = a%d", i, i);
  sj_buf_puts(&s, ") }");
  isl_map *allowed = isl_map_read_from_str(ctx, s.data);
  sj_buf_free(&s);
  isl_map *bad = isl_map_subtract(between, allowed);
  if (isl_map_is_empty(bad) != isl_bool_true) {
    isl_map *one = isl_map_from_basic_map(isl_map_sample(isl_map_copy(bad)));
    char *txt = isl_map_to_str(one);
    printf("FAIL %s %s h=%d w0=%ld: a dependence breaks the order: %s\n", kind, what, h, w0, txt);
    free(txt);
    isl_map_free(one);
    failures++;
  }
  isl_map_free(bad);
}

static void check(isl_ctx *ctx, const sj_cone *c, int h, const long *w, const char *what) {
  sj_buf why = {0};
  sj_hex t;
  if (sj_hybrid_shape(c, h, w, &t, &why)) {
    printf("  (%s: h=%d w0=%ld refused: %s)\n", what, h, w[0], why.data);
    sj_buf_free(&why);
  } else {
    isl_map *tiles = isl_map_union(sj_hybrid_tiles(ctx, c, &t, 0), sj_hybrid_tiles(ctx, c, &t, 1));
    check_tiles(ctx, c, tiles, what, "hybrid", h, w[0]);
  }
  /* split tiling with bands of 2h + 2 steps, as high as the hybrid ones */
  sj_split split;
  sj_split_shape(c, 2 * h + 2, w, &split);
  isl_map *tiles = NULL;
  for (int k = 0; k < 2 << c->n; k++) {
    isl_map *mine = sj_split_tiles(ctx, c, &split, k);
    tiles = tiles ? isl_map_union(tiles, mine) : mine;
  }
  check_tiles(ctx, c, tiles, what, "split", 2 * h + 2, w[0]);
}

/* The cone of the dependences deps (source box [0, 8) in each dimension), against the slopes
 * expected (num, den pairs: up, down, then skew and lead of dimension 1), or its refusal. */
static void check_cone(isl_ctx *ctx, int n, const char *deps, const long *want, const char *what) {
  isl_union_map *d = isl_union_map_read_from_str(ctx, deps);
  sj_cone c;
  sj_buf why = {0};
  int rc = sj_hybrid_cone(d, n, &c, &why);
  isl_union_map_free(d);
  if (!want) {
    if (rc == 0) fprintf(stderr, "FAIL cone %s: accepted, expected a refusal\n", what), failures++;
    sj_buf_free(&why);
    return;
  }
  long got[8] = {c.up_num, c.up_den, c.down_num, c.down_den};
  if (n >= 1)
    got[4] = c.skew_num[1], got[5] = c.skew_den[1], got[6] = c.lead_num[1], got[7] = c.lead_den[1];
  if (rc != 0 || memcmp(got, want, (size_t)(n >= 1 ? 8 : 4) * sizeof *got)) {
    fprintf(stderr, "FAIL cone %s: rc %d (%s), up %ld/%ld down %ld/%ld", what, rc,
            why.data ? why.data : "", got[0], got[1], got[2], got[3]);
    if (n >= 1) fprintf(stderr, " skew %ld/%ld lead %ld/%ld", got[4], got[5], got[6], got[7]);
    fprintf(stderr, "\n");
    failures++;
  }
  sj_buf_free(&why);
}

/* The dependence cone from distances: a double-buffered stencil over 10^4 steps (every odd
 * distance in time, a piece per space distance: the smallest dt stands for each), the
 * asymmetric pattern of A[t][i] from A[t-1][i+1] and A[t-2][i-3], a piece whose space distance
 * is a range (scanned point by point), rational slopes, and distances that do not go forward. */
static void check_cones(isl_ctx *ctx) {
  const char *src = "0 <= t < 8 and 0 <= s < 8";
  char buf[1024];
  snprintf(buf, sizeof buf,
           "{ [t, s] -> [t2, s - 1] : exists k: t2 = t + 1 + 2k and 0 <= k < 5000 and %s; "
           "[t, s] -> [t2, s] : exists k: t2 = t + 1 + 2k and 0 <= k < 5000 and %s; "
           "[t, s] -> [t2, s + 1] : exists k: t2 = t + 1 + 2k and 0 <= k < 5000 and %s }",
           src, src, src);
  const long radius1[] = {1, 1, 1, 1};
  check_cone(ctx, 0, buf, radius1, "double buffer, 10^4 steps");
  snprintf(buf, sizeof buf, "{ [t, s] -> [t + 1, s - 1] : %s; [t, s] -> [t + 2, s + 3] : %s }", src,
           src);
  const long asym[] = {3, 2, 1, 1};
  check_cone(ctx, 0, buf, asym, "asymmetric");
  snprintf(buf, sizeof buf,
           "{ [t, s, u] -> [t + 1, s2, u] : -1 <= s2 - s <= 1 and %s and 0 <= u < 8; "
           "[t, s, u] -> [t + 2, s, u - 3] : %s and 0 <= u < 8; "
           "[t, s, u] -> [t + 4, s, u + 1] : %s and 0 <= u < 8 }",
           src, src, src);
  const long range[] = {1, 1, 1, 1, 3, 2, 1, 4};
  check_cone(ctx, 1, buf, range, "a range of space distances, rational slopes");
  snprintf(buf, sizeof buf, "{ [t, s] -> [t, s + 1] : %s }", src);
  check_cone(ctx, 0, buf, NULL, "a distance within one step");
  snprintf(buf, sizeof buf, "{ [t, s] -> [t + 1, s2] : -5000 <= s2 - s <= 5000 and %s }", src);
  check_cone(ctx, 0, buf, NULL, "too many distances to scan");
}

int main(void) {
  isl_ctx *ctx = isl_ctx_alloc();
  check_cones(ctx);
  struct {
    const char *what;
    sj_cone c;
  } cones[] = {
      /* the relation bounds ds_i (i >= 1) by 2 forward: lead 2 */
      {"1D radius 1", {0, 1, 1, 1, 1, {0}, {1, 1, 1}, {0}, {1, 1, 1}}},
      {"1D radius 2", {0, 2, 1, 2, 1, {0}, {1, 1, 1}, {0}, {1, 1, 1}}},
      {"1D asymmetric 3/2 and 1", {0, 3, 2, 1, 1, {0}, {1, 1, 1}, {0}, {1, 1, 1}}},
      {"2D radius 1", {1, 1, 1, 1, 1, {0, 1}, {1, 1, 1}, {0, 2}, {1, 1, 1}}},
      {"2D rational skew", {1, 1, 2, 1, 1, {0, 3}, {1, 2, 1}, {0, 2}, {1, 1, 1}}},
      {"3D radius 1", {2, 1, 1, 1, 1, {0, 1, 1}, {1, 1, 1}, {0, 2, 2}, {1, 1, 1}}},
  };
  int heights[] = {1, 2, 3};
  for (size_t k = 0; k < sizeof cones / sizeof *cones; k++)
    for (int hi = 0; hi < 3; hi++) {
      int h = heights[hi];
      if (cones[k].c.n == 2 && h > 2) continue; /* 3D: enough at small heights */
      long w[3] = {h + 2, 6, 5};
      check(ctx, &cones[k].c, h, w, cones[k].what);
      w[0] = h + 5;
      check(ctx, &cones[k].c, h, w, cones[k].what);
    }
  isl_ctx_free(ctx);
  if (failures) return 1;
  printf("hybrid_shape: ok\n");
  return 0;
}
