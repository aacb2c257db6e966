/* The geometry of hybrid hexagonal/parallelogram tiling (thesis §5.2; seed digest §3-4):
 * the dependence cone read off the exact dependences through the folded time, and the tile
 * functions on the folded space F = [t, s0, .., sn] as quasi-affine isl expressions.
 *
 * Hexagonal tiles over (t, s0) in two phases per band of H = 2h + 2 steps, equations
 * (4)-(15). The other space dimensions get parallelogram tiles skewed by their slope over
 * the whole time range (s_i + delta_i * t), not restarted per band as in the thesis: then
 * every dependence goes to the same or a later tile along s_i, across bands too, and the
 * tiles of one wavefront L = q + sum S_i (q = 2T + phase) have no dependence between
 * them, so they all run in parallel: every tile dimension is on the grid.
 *
 * Phase 0's box is offset by w0 + 1 + floor(delta0 h) along s0, as the thesis's truncated
 * cones give (offsets (-h-1, -w0-1-floor(delta0 h)) and (-h-1, w0+1+floor(delta1 h)) with
 * W = 2 w0 + 2 + floor(delta0 h) + floor(delta1 h)); its equation (5) as printed has
 * floor(delta1 h), which differs when the cone is not symmetric, and then the phases
 * overlap (tests/sched/hybrid_shape_test.c checks the coverage). */
#include "sched/hybrid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "base/arith.h"
#include "base/buf.h"

static long gcd(long a, long b) {
  while (b) {
    long t = a % b;
    a = b, b = t;
  }
  return a < 0 ? -a : a;
}

/* n/d reduced, d > 0; the larger of two fractions. */
static void keep_max(long *pn, long *pd, long n, long d) {
  if (n * *pd > *pn * d) {
    long g = gcd(n, d);
    *pn = n / g, *pd = d / g;
  }
}

/* --- the dependence cone --- */

typedef struct cone_scan {
  sj_cone *c;
  int n;     /* space dimensions */
  int bad;   /* a distance with dt < 1 */
  int big;   /* distances too many to scan */
  long left; /* distances still to be scanned one by one */
} cone_scan;

/* The slopes of the distance (dt, ds0, .., dsn). */
static void scan_distance(cone_scan *s, long dt, const long *ds) {
  if (dt < 1) {
    s->bad = 1;
    return;
  }
  keep_max(&s->c->up_num, &s->c->up_den, ds[0], dt);
  keep_max(&s->c->down_num, &s->c->down_den, -ds[0], dt);
  for (int i = 1; i <= s->n; i++) {
    keep_max(&s->c->skew_num[i], &s->c->skew_den[i], -ds[i], dt);
    keep_max(&s->c->lead_num[i], &s->c->lead_den[i], ds[i], dt);
  }
}

static long coordinate(__isl_keep isl_point *p, int pos) {
  isl_val *v = isl_point_get_coordinate_val(p, isl_dim_set, pos);
  long x = isl_val_get_num_si(v);
  isl_val_free(v);
  return x;
}

static isl_stat scan_point(__isl_take isl_point *p, void *user) {
  cone_scan *s = user;
  long ds[SJ_HYBRID_MAX_SPACE];
  for (int i = 0; i <= s->n; i++) ds[i] = coordinate(p, 1 + i);
  scan_distance(s, coordinate(p, 0), ds);
  isl_point_free(p);
  return s->bad ? isl_stat_error : isl_stat_ok;
}

/* A piece of the distances. Where its space distances are fixed, the slopes are largest at its
 * smallest dt, which stands for all of it (the distances through a buffer of 2 time steps
 * are every odd dt up to T: thousands of points, one slope each). Other pieces are scanned point
 * by point, when bounded and not too many. */
static isl_stat scan_piece(__isl_take isl_basic_set *piece, void *user) {
  cone_scan *s = user;
  long ds[SJ_HYBRID_MAX_SPACE];
  int fixed = 1;
  isl_set *set = isl_set_from_basic_set(piece);
  for (int i = 0; i <= s->n && fixed; i++) {
    isl_val *v = isl_set_plain_get_val_if_fixed(set, isl_dim_set, 1 + i);
    fixed = v && isl_val_is_int(v);
    if (fixed) ds[i] = isl_val_get_num_si(v);
    isl_val_free(v);
  }
  if (fixed) {
    isl_val *lo = isl_set_dim_min_val(isl_set_copy(set), 0);
    if (isl_val_is_int(lo))
      scan_distance(s, isl_val_get_num_si(lo), ds);
    else if (!isl_val_is_nan(lo)) /* unbounded below: no dt is the least */
      s->bad = 1;
    isl_val_free(lo);
  } else {
    isl_val *count = isl_set_is_bounded(set) == isl_bool_true ? isl_set_count_val(set) : NULL;
    if (count && isl_val_is_int(count) && isl_val_get_num_si(count) <= s->left) {
      s->left -= isl_val_get_num_si(count);
      isl_set_foreach_point(set, scan_point, s);
    } else {
      s->big = 1;
    }
    isl_val_free(count);
  }
  isl_set_free(set);
  return s->bad || s->big ? isl_stat_error : isl_stat_ok;
}

int sj_hybrid_cone(__isl_keep isl_union_map *deps, int n, sj_cone *c, sj_buf *why) {
  memset(c, 0, sizeof *c);
  c->n = n;
  c->up_den = c->down_den = 1;
  for (int i = 0; i <= n; i++) c->skew_den[i] = c->lead_den[i] = 1;
  isl_union_map *d = isl_union_map_copy(deps);
  isl_union_set *deltas = isl_union_map_deltas(d);
  if (isl_union_set_is_empty(deltas) == isl_bool_true) { /* any tiling will do */
    isl_union_set_free(deltas);
    return 0;
  }
  isl_set *set = isl_set_from_union_set(deltas);
  cone_scan s = {c, n, 0, 0, 4096};
  isl_set_foreach_basic_set(set, scan_piece, &s);
  isl_set_free(set);
  if (s.big) {
    sj_buf_printf(why, "the dependence distances are not a small constant set");
    return -1;
  }
  if (s.bad) {
    sj_buf_printf(why, "a dependence does not go forward in the folded time");
    return -1;
  }
  return 0;
}

void sj_hybrid_whole_skews(sj_cone *c) {
  for (int i = 1; i <= c->n; i++) {
    c->skew_num[i] = sj_ceil_div(c->skew_num[i], c->skew_den[i]);
    c->skew_den[i] = 1;
  }
}

/* --- the tile functions --- */

/* floor(x * num / den) for the tile sizes. */
static long floor_scaled(long x, long num, long den) {
  return sj_floor_div(x * num, den);
}

int sj_hybrid_shape(const sj_cone *c, int h, const long *w, sj_hex *t, sj_buf *why) {
  memset(t, 0, sizeof *t);
  t->n = c->n;
  t->h = h;
  t->H = 2 * h + 2;
  for (int i = 0; i <= c->n; i++) t->w[i] = w[i];
  long fu = floor_scaled(h, c->up_num, c->up_den), fd = floor_scaled(h, c->down_num, c->down_den);
  t->floor_up = fu;
  t->floor_down = fd;
  t->W = 2 * w[0] + 2 + fu + fd;
  t->D = fd - fu;
  /* convexity (3): w0 >= max(delta + {delta h}) - 1, in units of the denominators */
  long need_up = sj_floor_div(c->up_num * (h + 1) - fu * c->up_den + c->up_den - 1, c->up_den) - 1;
  long need_down =
      sj_floor_div(c->down_num * (h + 1) - fd * c->down_den + c->down_den - 1, c->down_den) - 1;
  if (w[0] < need_up || w[0] < need_down) {
    /* the reach says why: a dependence across the grid (a boundary or a source placed away from
     * what it writes) reaches as far as the grid is wide */
    double up = (double)c->up_num / (double)c->up_den,
           down = (double)c->down_num / (double)c->down_den;
    sj_buf_printf(why,
                  "w0 = %ld is too narrow for h = %d: the dependences reach %g points along s0 "
                  "in a step (needs w0 >= %ld)",
                  w[0], h, up > down ? up : down, need_up > need_down ? need_up : need_down);
    return -1;
  }
  return 0;
}

/* The hexagon of phase p (constraints (8)-(15), times the denominators) on its local time a
 * and hexagon coordinate b, given as isl expressions. */
static void hexagon(sj_buf *s, const sj_cone *c, const sj_hex *t, const char *a, const char *b) {
  long h = t->h, p0 = c->up_num, q0 = c->up_den, p1 = c->down_num, q1 = c->down_den;
  long fu = t->floor_up, fd = t->floor_down, w0 = t->w[0];
  sj_buf_printf(s, " and %ld*%s - %ld*%s <= %ld", p0, a, q0, b,
                (2 * h + 1) * p0 - q0 * fu);                       /* (8) */
  sj_buf_printf(s, " and %s <= %ld and %s >= 0", a, 2 * h + 1, a); /* (9) (15) */
  sj_buf_printf(s, " and %ld*%s + %ld*%s <= %ld", p1, a, q1, b,
                (2 * h + 1) * p1 + q1 * (fu + w0));                                 /* (10) */
  sj_buf_printf(s, " and %ld*%s + %ld*%s >= %ld", p1, a, q1, b, h * p1 - (q1 - 1)); /* (12) */
  sj_buf_printf(s, " and %ld*%s - %ld*%s >= %ld", p0, a, q0, b,
                p0 * h - q0 * (fu + w0 + fd) - (q0 - 1)); /* (14) */
}

__isl_give isl_set *sj_hybrid_phase(isl_ctx *ctx, const sj_cone *c, const sj_hex *t, int p) {
  return isl_map_domain(sj_hybrid_tiles(ctx, c, t, p));
}

/* The tile coordinates are output dimensions bound by constraints rather than floor
 * expressions of the point, so that the map, and every set built on it, has no existentially
 * quantified variables: what keeps the AST generation fast. */
__isl_give isl_map *sj_hybrid_tiles(isl_ctx *ctx, const sj_cone *c, const sj_hex *t, int p) {
  /* phase 0 starts half a band later and half a period further along s0 */
  long start = p == 0 ? t->h + 1 : 0, off = p == 0 ? t->floor_up + t->w[0] + 1 : 0;
  char a[96], b[160];
  snprintf(a, sizeof a, "(t + %ld - %ld*T)", start, t->H);
  snprintf(b, sizeof b, "(s0 + %ld + %ld*T - %ld*S0)", off, t->D, t->W);
  sj_buf s = {0};
  sj_buf_puts(&s, "{ [t");
  for (int i = 0; i <= t->n; i++) sj_buf_printf(&s, ", s%d", i);
  sj_buf_puts(&s, "] -> [L, p, T");
  for (int i = 0; i <= t->n; i++) sj_buf_printf(&s, ", S%d", i);
  sj_buf_printf(&s, "] : p = %d and L = T", p);
  for (int i = 1; i <= t->n; i++) sj_buf_printf(&s, " + S%d", i);
  sj_buf_printf(&s, " and 0 <= %s <= %ld", b, t->W - 1);
  for (int i = 1; i <= t->n; i++) {
    long den = c->skew_den[i], width = den * t->w[i];
    sj_buf_printf(&s, " and 0 <= %ld*s%d + %ld*t - %ld*S%d <= %ld", den, i, c->skew_num[i], width,
                  i, width - 1);
  }
  hexagon(&s, c, t, a, b);
  sj_buf_puts(&s, " }");
  isl_map *map = isl_map_read_from_str(ctx, s.data);
  sj_buf_free(&s);
  return map;
}

/* A tile's points relative to its origin: the hexagon coordinate b and along each
 * parallelogram dimension the offset from the tile's skewed edge (0 to w - 1); the time stays
 * (relative steps cost the kernels instructions). Bands over them visit the points in the
 * order of F, and their bounds depend on the tile only where the iteration space cuts it: what
 * keeps the AST generation cheap (the thread filters bind these too). A dimension with a
 * fractional slope
 * keeps its coordinate (its offsets would step by the denominator), and so does the innermost
 * one, along which a warp's threads go, unless its tiles are boxes whose width is a multiple of
 * x_block: a warp then touches the same 32-element windows of memory either way, where offsets
 * from a tile that starts off a multiple of 32 would cost a sector at each end of a row.
 * box[d]: w_d where space coordinate d is such an offset (0 to w_d - 1 in every tile and step),
 * else 0. */
__isl_give isl_multi_aff *sj_hybrid_local(isl_ctx *ctx, const sj_cone *c, const sj_hex *t,
                                          long x_block, long *box) {
  sj_buf s = {0};
  sj_buf_puts(&s, "{ [t");
  for (int i = 0; i <= t->n; i++) sj_buf_printf(&s, ", s%d", i);
  sj_buf_puts(&s, ", L, p, T");
  for (int i = 0; i <= t->n; i++) sj_buf_printf(&s, ", S%d", i);
  long off = t->floor_up + t->w[0] + 1;
  sj_buf_puts(&s, "] -> [t, ");
  if (t->n == 0)
    sj_buf_puts(&s, "s0");
  else
    sj_buf_printf(&s, "s0 + %ld - %ld*p + %ld*T - %ld*S0", off, off, t->D, t->W);
  box[0] = 0;
  for (int i = 1; i <= t->n; i++) {
    box[i] = c->skew_den[i] == 1 && (i < t->n || t->w[i] % x_block == 0) ? t->w[i] : 0;
    if (box[i])
      sj_buf_printf(&s, ", s%d + %ld*t - %ld*S%d", i, c->skew_num[i], t->w[i], i);
    else
      sj_buf_printf(&s, ", s%d", i);
  }
  /* the step in the band last: phase 0 starts half a band later */
  sj_buf_printf(&s, ", t + %ld - %ld*p - %ld*T] }", (long)t->h + 1, (long)t->h + 1, t->H);
  isl_multi_aff *ma = isl_multi_aff_read_from_str(ctx, s.data);
  sj_buf_free(&s);
  return ma;
}
