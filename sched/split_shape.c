/* The geometry of split tiling (seed digest: Grosser's split tiling; sched/hybrid.h): the
 * tiles of a band as isl maps whose tile coordinates are output dimensions bound by affine
 * constraints, in the layout of the hybrid tiles, so sched/hybrid.c builds either tree.
 *
 * Along a dimension with dependence slopes r (ds <= r dt) and l (ds >= -l dt), at local
 * time a of the band, with x = s - period * S:
 *   upright (bit 0):   ceil(r a) <= x <= base - 1 - ceil(l a)
 *   inverted (bit 1):  base - ceil(l a) <= x <= period - 1 + ceil(r a)
 * An upright tile holds every source of its points that lies in the band; an inverted one
 * takes the rest between two upright ones. base = w + ceil(r (h - 1)) + ceil(l (h - 1)) keeps
 * the upright tops w wide. */
#include "sched/hybrid.h"

#include <isl/aff.h>
#include <isl/map.h>

#include "base/buf.h"

static long ceil_scaled(long x, long num, long den) {
  return (x * num + den - 1) / den; /* x, num >= 0 */
}

/* The slopes of dimension d: r (rightward) and l (leftward), as num/den. */
static void slopes(const sj_cone *c, int d, long *rn, long *rd, long *ln, long *ld) {
  *rn = d ? c->lead_num[d] : c->up_num, *rd = d ? c->lead_den[d] : c->up_den;
  *ln = d ? c->skew_num[d] : c->down_num, *ld = d ? c->skew_den[d] : c->down_den;
}

void sj_split_shape(const sj_cone *c, int h, const long *w, sj_split *t) {
  t->n = c->n;
  t->h = h;
  for (int d = 0; d <= c->n; d++) {
    long rn, rd, ln, ld;
    slopes(c, d, &rn, &rd, &ln, &ld);
    t->w[d] = w[d];
    t->base[d] = w[d] + ceil_scaled(h - 1, rn, rd) + ceil_scaled(h - 1, ln, ld);
    t->period[d] = t->base[d] + w[d];
  }
}

__isl_give isl_map *sj_split_tiles(isl_ctx *ctx, const sj_cone *c, const sj_split *t, int color) {
  sj_buf s = {0};
  sj_buf_puts(&s, "{ [t");
  for (int d = 0; d <= t->n; d++) sj_buf_printf(&s, ", s%d", d);
  sj_buf_puts(&s, "] -> [L, c, T");
  for (int d = 0; d <= t->n; d++) sj_buf_printf(&s, ", S%d", d);
  sj_buf_printf(&s, "] : c = %d and L = T and 0 <= t - %d*T <= %d", color, t->h, t->h - 1);
  for (int d = 0; d <= t->n; d++) {
    long rn, rd, ln, ld, base = t->base[d], period = t->period[d];
    slopes(c, d, &rn, &rd, &ln, &ld);
    char x[64];
    snprintf(x, sizeof x, "(s%d - %ld*S%d)", d, period, d);
    if (!(color >> d & 1))
      sj_buf_printf(&s, " and %ld*%s >= %ld*(t - %d*T) and %ld*(t - %d*T) <= %ld*(%ld - %s)", rd, x,
                    rn, t->h, ln, t->h, ld, base - 1, x);
    else
      sj_buf_printf(&s,
                    " and %ld*(t - %d*T) >= %ld*(%ld - %s) + 1 and %ld*(t - %d*T) >= %ld*(%s - "
                    "%ld) + 1",
                    ln, t->h, ld, base - 1, x, rn, t->h, rd, x, period);
  }
  sj_buf_puts(&s, " }");
  isl_map *map = isl_map_read_from_str(ctx, s.data);
  sj_buf_free(&s);
  return map;
}

/* A tile's points relative to its origin (sj_hybrid_local): the step in the band; the space
 * coordinates stay, the rows of trapezoids being no boxes (offsets from the tile's period would
 * cost the kernels instructions and, along x, sectors). */
__isl_give isl_multi_aff *sj_split_local(isl_ctx *ctx, const sj_split *t, long *box) {
  sj_buf s = {0};
  sj_buf_puts(&s, "{ [t");
  for (int d = 0; d <= t->n; d++) sj_buf_printf(&s, ", s%d", d);
  sj_buf_puts(&s, ", L, c, T");
  for (int d = 0; d <= t->n; d++) sj_buf_printf(&s, ", S%d", d);
  for (int d = 0; d <= t->n; d++) box[d] = 0; /* trapezoids */
  sj_buf_printf(&s, "] -> [t - %d*T", t->h);
  for (int d = 0; d <= t->n; d++) sj_buf_printf(&s, ", s%d", d);
  sj_buf_printf(&s, ", t - %d*T] }", t->h);
  isl_multi_aff *ma = isl_multi_aff_read_from_str(ctx, s.data);
  sj_buf_free(&s);
  return ma;
}
