/* The time-tiled CPU schedule of a stencil: tiles that keep their data in a core's cache
 * across h time steps, the tiles of a wavefront spread over the workers with one barrier per
 * wavefront (seed digest 1: hybrid tiling, trapezoids instead of hexagons).
 *
 * In the space X = [f, s0, .., s(n-1)] (f the folded time, s the space loops, lower nests
 * padded with zeros in front), time is cut into bands of h steps (T = f div h, tt = f mod h).
 * Along s0 a band is cut into trapezoids of period P: with u = s0 - a*tt,
 *   phase 0, tile K = u div P:  u mod P < B - (a + b) tt   (shrinking upwards)
 *   phase 1, tile K:           the rest, between tiles K and K + 1 of phase 0 (growing)
 * where a and b bound how far a dependence reaches along s0 per step, to higher and lower
 * s0. A phase-0 tile needs only points of its own tile and of earlier bands, a phase-1 tile
 * only those and phase 0: the tiles of a phase are independent, the phases are wavefronts.
 * Inside a tile the other space dimensions are cut into parallelograms of width W (skewed by
 * c, the reach to lower indices per step), run one after the other by the tile's worker,
 * each over its tt steps, so that one (trapezoid x parallelogram) stays in cache.
 *
 *   band [T] - sequence - filter phase p - mark parallel - band [K] - band [J..] - band [f, s..]
 *
 * Legality, as Pluto checks tiling hyperplanes: isl verifies on the distances of every
 * dependence (the model's conflicts in original order: memory-based, a superset of the exact
 * dependences at a fraction of their cost) that none crosses a tile face backwards:
 * ds0 <= a df, -ds0 <= b df and -ds <= c df, a, b and c being the least such slopes (none up
 * to 8: the untiled schedule, and the explanation says why). With B >= (a + b)(h - 1) and
 * B <= P every source of a point is then in an earlier band, in phase 0, or earlier in the
 * same tile; tests/tile_test.c checks that with isl against the whole tiled schedule
 * (sj_cpu_tiled_check), which costs too much to do in every compile. */
#include "sched/sched.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/space.h>
#include <isl/val.h>

#include "base/buf.h"
#include "base/file.h"
#include "stenciljit.h"

enum { MAX_SPACE = 3, MAX_SLOPE = 8, MAX_H = 64 };

/* isl operations the attempt may use before it gives up for the untiled schedule; the test
 * kernels need under 2 M (heat-3d 27-point: 1.5 M). */
#define TILE_BUDGET 20000000ul
/* Beyond this many statements time tiling is not tried (the conflicts above). */
#define MAX_STMTS 40

/* --- sizes: JIT_TILE's syntax --- */

int sj_tile_spec_parse(const char *s, sj_tile_spec *out, char *why, size_t cap) {
  memset(out, 0, sizeof *out);
  if (!strcmp(s, "none")) {
    out->off = 1;
    return 0;
  }
  const char *p = s;
  while (*p) {
    char *end;
    if (!strncmp(p, "h=", 2)) {
      long v = strtol(p + 2, &end, 10);
      if (end == p + 2 || v < 1 || v > MAX_H)
        return snprintf(why, cap, "h= needs a height of 1 to %d", MAX_H), -1;
      out->h = v;
    } else if (!strncmp(p, "w=", 2)) {
      end = (char *)p + 1;
      out->nw = 0;
      do {
        const char *q = end + 1;
        long v = strtol(q, &end, 10);
        if (end == q || v < 1 || v > (1L << 30))
          return snprintf(why, cap, "w= needs widths of 1 or more, separated by 'x'"), -1;
        if (out->nw == MAX_SPACE)
          return snprintf(why, cap, "w= takes at most %d widths", MAX_SPACE), -1;
        out->w[out->nw++] = v;
      } while (*end == 'x');
    } else {
      return snprintf(why, cap, "expected \"none\" or h=H,w=W0xW1..."), -1;
    }
    if (*end && *end != ',') return snprintf(why, cap, "expected ',' after a size"), -1;
    p = *end ? end + 1 : end;
  }
  return 0;
}

/* --- the machine's caches --- */

/* The data cache of the given level private to one core, or its share of a shared one
 * (sysfs); 0 when unknown. */
static long cache_bytes(int level) {
  for (int i = 0; i < 8; i++) {
    char path[96], *text;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (!(text = sj_read_file(path, NULL))) break;
    int lv = atoi(text);
    free(text);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
    text = sj_read_file(path, NULL);
    int instr = text && !strncmp(text, "Instruction", 11);
    free(text);
    if (lv != level || instr) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    text = sj_read_file(path, NULL);
    char *end;
    long size = text ? strtol(text, &end, 10) : 0;
    if (text && (*end == 'K' || *end == 'k')) size <<= 10;
    if (text && *end == 'M') size <<= 20;
    free(text);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
    text = sj_read_file(path, NULL);
    int sharing = 1; /* "0-1,4-5": count the CPUs */
    for (char *q = text; q && *q && *q != '\n';) {
      long x = strtol(q, &end, 10), y = *end == '-' ? strtol(end + 1, &end, 10) : x;
      sharing += (int)(y - x) + (q != text);
      q = *end == ',' ? end + 1 : end;
      if (end == q && *q != ',') break;
    }
    free(text);
    return size / (sharing > 0 ? sharing : 1);
  }
  return 0;
}

/* --- the space X --- */

typedef struct tiler {
  sj_model *m;
  const sj_stencil *st;
  isl_ctx *ctx;
  int n;                  /* space dimensions of X */
  isl_pw_multi_aff **x;   /* by statement: S -> X */
  long lo[1 + MAX_SPACE]; /* bounds of X over the domain */
  long hi[1 + MAX_SPACE];
  int a, b, c[MAX_SPACE]; /* reach per step: s0 up and down, the others down */
  long h, P, B, W[MAX_SPACE];
  isl_union_map *conflicts; /* in original order */
  sj_buf *why;              /* why not */
  char caches[160];         /* what the sizes were chosen from */
} tiler;

static int decline(tiler *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int decline(tiler *t, const char *fmt, ...) {
  char text[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  sj_buf_puts(t->why, text);
  return 1;
}

static __isl_give isl_local_space *x_space(tiler *t) {
  return isl_local_space_from_space(isl_space_set_alloc(t->ctx, 0, 1 + t->n));
}

static __isl_give isl_aff *var(tiler *t, int pos) {
  return isl_aff_var_on_domain(x_space(t), isl_dim_set, pos);
}

static __isl_give isl_aff *cst(tiler *t, long v) {
  return isl_aff_val_on_domain(x_space(t), isl_val_int_from_si(t->ctx, v));
}

/* S -> X of statement s: its folded time, then its place in space (sj_place_of); NULL where
 * it has none. */
static __isl_give isl_pw_multi_aff *to_x(tiler *t, const sj_pstmt *s) {
  isl_multi_aff *sp = sj_place_aff(t->m, s, t->n - 1);
  if (!sp) return NULL;
  isl_space *space = isl_set_get_space(s->domain);
  isl_map *fold = isl_union_map_extract_map(
      t->st->folded, isl_space_map_from_domain_and_range(space, isl_space_set_alloc(t->ctx, 0, 1)));
  return isl_pw_multi_aff_flat_range_product(isl_pw_multi_aff_from_map(fold),
                                             isl_pw_multi_aff_from_multi_aff(sp));
}

static __isl_give isl_union_map *x_map(tiler *t) {
  isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(t->ctx, 0));
  for (int i = 0; i < t->m->nstmts; i++)
    u = isl_union_map_add_map(u, isl_map_from_pw_multi_aff(isl_pw_multi_aff_copy(t->x[i])));
  return u;
}

/* aff (on X) as a function of every statement's instances. */
static __isl_give isl_union_pw_aff *pull(tiler *t, __isl_take isl_aff *aff) {
  isl_union_pw_aff *u = isl_union_pw_aff_empty(isl_space_params_alloc(t->ctx, 0));
  for (int i = 0; i < t->m->nstmts; i++)
    u = isl_union_pw_aff_add_pw_aff(
        u, isl_pw_aff_pullback_pw_multi_aff(isl_pw_aff_from_aff(isl_aff_copy(aff)),
                                            isl_pw_multi_aff_copy(t->x[i])));
  isl_aff_free(aff);
  return u;
}

/* The instances whose X lies in set. */
static __isl_give isl_union_set *pull_set(tiler *t, __isl_take isl_set *set) {
  isl_union_set *u = isl_union_set_empty(isl_space_params_alloc(t->ctx, 0));
  for (int i = 0; i < t->m->nstmts; i++)
    u = isl_union_set_add_set(
        u, isl_set_intersect(
               isl_set_preimage_pw_multi_aff(isl_set_copy(set), isl_pw_multi_aff_copy(t->x[i])),
               isl_set_copy(t->m->stmts[i]->domain)));
  isl_set_free(set);
  return u;
}

/* The conflicts of the model in original order: later in folded time (conflicts hold both
 * orders, and none has both instances in one step of a stencil). */
static __isl_give isl_union_map *forward_conflicts(const sj_model *m,
                                                   __isl_keep isl_union_map *fold) {
  isl_ctx *ctx = m->ctx;
  isl_union_map *later = isl_union_map_from_map(
      isl_map_lex_lt_first(isl_space_map_from_set(isl_space_set_alloc(ctx, 0, 1)), 1));
  isl_union_map *fwd = isl_union_map_apply_range(isl_union_map_copy(fold), later);
  fwd = isl_union_map_apply_range(fwd, isl_union_map_reverse(isl_union_map_copy(fold)));
  return isl_union_map_intersect(sj_model_conflicts(m, m->domain), fwd);
}

/* Bounds of X; 0 on success. */
static int measure(tiler *t) {
  isl_union_map *x = x_map(t);
  isl_set *dom = isl_set_from_union_set(
      isl_union_set_apply(isl_union_set_copy(t->m->domain), isl_union_map_copy(x)));
  int rc = dom ? 0 : -1;
  for (int d = 0; d <= t->n && !rc; d++) rc = sj_set_dim_range(dom, d, &t->lo[d], &t->hi[d]);
  isl_set_free(dom);
  isl_union_map_free(x);
  return rc;
}

/* Whether some distance d of the conflicts has sign * d[pos] > slope * d[0]. */
static isl_bool reaches(tiler *t, __isl_keep isl_set *dist, int pos, int sign, int slope) {
  isl_aff *e = isl_aff_sub(isl_aff_scale_val(var(t, pos), isl_val_int_from_si(t->ctx, sign)),
                           isl_aff_scale_val(var(t, 0), isl_val_int_from_si(t->ctx, slope)));
  isl_set *beyond = isl_set_intersect(isl_set_copy(dist), isl_aff_ge_set(e, cst(t, 1)));
  isl_bool empty = isl_set_is_empty(beyond);
  isl_set_free(beyond);
  return empty < 0 ? isl_bool_error : !empty;
}

/* The least slope in 0..MAX_SLOPE that no distance exceeds, -1 if none, -2 on isl failure. */
static int least_slope(tiler *t, __isl_keep isl_set *dist, int pos, int sign) {
  for (int s = 0; s <= MAX_SLOPE; s++) {
    isl_bool r = reaches(t, dist, pos, sign, s);
    if (r < 0) return -2;
    if (!r) return s;
  }
  return -1;
}

static const char *const dim_names[] = {"s0", "s1", "s2"};

static int slopes(tiler *t) {
  isl_union_map *cx = isl_union_map_apply_range(
      isl_union_map_apply_domain(isl_union_map_copy(t->conflicts), x_map(t)), x_map(t));
  isl_union_set *deltas = isl_union_map_deltas(cx);
  if (isl_union_set_is_empty(deltas) == isl_bool_true) {
    isl_union_set_free(deltas);
    t->a = t->b = 0;
    for (int d = 1; d < t->n; d++) t->c[d] = 0;
    return 0;
  }
  isl_set *dist = isl_set_from_union_set(deltas);
  int rc = 0, *out[] = {&t->a, &t->b};
  for (int k = 0; k < 2 && !rc; k++) {
    *out[k] = least_slope(t, dist, 1, k ? -1 : 1);
    if (*out[k] < 0)
      rc = *out[k] == -2 ? -1
                         : decline(t, "a dependence reaches more than %d points of %s per step",
                                   MAX_SLOPE, dim_names[0]);
  }
  for (int d = 1; d < t->n && !rc; d++) {
    t->c[d] = least_slope(t, dist, 1 + d, -1);
    if (t->c[d] < 0)
      rc = t->c[d] == -2 ? -1
                         : decline(t, "a dependence reaches more than %d points of %s per step",
                                   MAX_SLOPE, dim_names[d]);
  }
  isl_set_free(dist);
  return rc;
}

/* --- sizes --- */

/* Bytes of the arrays per point of the space domain: what a tile point keeps in cache. */
static double bytes_per_point(tiler *t) {
  double vol = 1, bytes = 0;
  for (int d = 1; d <= t->n; d++) vol *= (double)(t->hi[d] - t->lo[d] + 1);
  const sj_func *fn = t->m->fn;
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind != SJ_SYM_ARRAY) continue;
    double elems = 1;
    for (int r = 0; r < s->rank; r++) elems *= (double)t->m->extents[s->id][r];
    bytes += elems * (s->type == SJ_TY_FLOAT || s->type == SJ_TY_INT ? 4 : 8);
  }
  return vol > 0 ? bytes / vol : 8;
}

static long extent(const tiler *t, int d) {
  return t->hi[1 + d] - t->lo[1 + d] + 1;
}

static long clampl(long v, long lo, long hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

/* Cache bytes one tile's points take over a band. */
static double footprint(const tiler *t, double per_point) {
  double f = (double)(t->B + (t->a + t->b) * t->h);
  for (int d = 1; d < t->n; d++) f *= (double)(t->W[d] + t->c[d] * t->h + 2);
  return f * per_point;
}

/* h and the widths for a cache budget: forced ones from spec, the others so that a tile's
 * points fit budget bytes, with at least two trapezoids per worker and phase, innermost widths
 * of at least 128 points (whole vectors, few partial ones). */
static void fit_sizes(tiler *t, const sj_tile_spec *spec, int nthreads, long steps, double budget,
                      double per_point) {
  for (int d = 1; d < t->n; d++) /* the innermost whole when short, the others 32 wide */
    t->W[d] = d < spec->nw ? spec->w[d] : d == t->n - 1 ? clampl(extent(t, d), 1, 512) : 32;
  long w0 = spec->nw ? spec->w[0] : 0, asked = spec->h;
  t->h = asked ? asked : clampl(steps, 1, 16);
  for (;;) {
    /* phase-0 tiles lose a + b points per step: w0 below need leaves them empty at the top */
    long need = ((t->a + t->b) * (t->h - 1) + 1) / 2;
    long w = w0 ? w0 : clampl(extent(t, 0) / (4L * nthreads), need > 4 ? need : 4, 64);
    if (w < need) {
      t->h--;
      continue;
    }
    t->P = 2 * w;
    t->B = w + need;
    /* shrink what was not forced until it fits: h first, then the middle widths */
    if (asked || footprint(t, per_point) <= budget || t->h <= 2) break;
    t->h /= 2;
  }
  if (asked && t->h < asked)
    snprintf(t->caches, sizeof t->caches, "h lowered from %ld: w0=%ld is too narrow for more",
             asked, t->P / 2);
  for (int d = t->n - 2; d >= 1; d--)
    while (d >= spec->nw && t->W[d] > 4 && footprint(t, per_point) > budget) t->W[d] /= 2;
}

/* Sizes for half of a core's L2 (the other half for what streams past). When that leaves
 * tiles too thin to pay (h <= 2 or a middle width under 16: a 3-D stencil's cross-section
 * with its innermost dimension whole), for the core's share of L3 instead, the level that
 * then gives the reuse: thin tiles lose more to their partial edges than they gain. */
static void choose_sizes(tiler *t, const sj_tile_spec *spec, int nthreads, long steps) {
  long l2 = cache_bytes(2), l1 = cache_bytes(1), l3 = cache_bytes(3);
  if (l2 <= 0) l2 = 1L << 20;
  double per_point = bytes_per_point(t);
  snprintf(t->caches, sizeof t->caches, "L1 %ldK, L2 %ldK per core (sysfs), %.0f bytes per point",
           l1 >> 10, l2 >> 10, per_point);
  fit_sizes(t, spec, nthreads, steps, l2 / 2.0, per_point);
  int thin = !spec->h && t->h <= 2 && steps > 2;
  for (int d = 1; d < t->n - 1; d++) thin |= d >= spec->nw && t->W[d] < 16;
  if (!thin || l3 <= l2) return;
  fit_sizes(t, spec, nthreads, steps, (double)l3, per_point);
  snprintf(t->caches, sizeof t->caches,
           "L2 %ldK per core too small for tiles that pay: sized for L3's share %ldK per core "
           "(sysfs), %.0f bytes per point",
           l2 >> 10, l3 >> 10, per_point);
}

/* --- the tree --- */

typedef struct exprs {
  isl_aff *T, *tt, *K, *J[MAX_SPACE];
  isl_set *phase0;
} exprs;

static void make_exprs(tiler *t, exprs *e) {
  isl_aff *f = isl_aff_add_constant_si(var(t, 0), (int)-t->lo[0]);
  e->T = isl_aff_floor(isl_aff_scale_down_ui(isl_aff_copy(f), (unsigned)t->h));
  e->tt = isl_aff_sub(f, isl_aff_scale_val(isl_aff_copy(e->T), isl_val_int_from_si(t->ctx, t->h)));
  isl_aff *u =
      isl_aff_sub(isl_aff_add_constant_si(var(t, 1), (int)-t->lo[1]),
                  isl_aff_scale_val(isl_aff_copy(e->tt), isl_val_int_from_si(t->ctx, t->a)));
  e->K = isl_aff_floor(isl_aff_scale_down_ui(isl_aff_copy(u), (unsigned)t->P));
  isl_aff *r =
      isl_aff_sub(u, isl_aff_scale_val(isl_aff_copy(e->K), isl_val_int_from_si(t->ctx, t->P)));
  r = isl_aff_add(r,
                  isl_aff_scale_val(isl_aff_copy(e->tt), isl_val_int_from_si(t->ctx, t->a + t->b)));
  e->phase0 = isl_aff_lt_set(r, cst(t, t->B));
  for (int d = 1; d < t->n; d++) {
    isl_aff *y = isl_aff_add_constant_si(var(t, 1 + d), (int)-t->lo[1 + d]);
    y = isl_aff_add(y,
                    isl_aff_scale_val(isl_aff_copy(e->tt), isl_val_int_from_si(t->ctx, t->c[d])));
    e->J[d] = isl_aff_floor(isl_aff_scale_down_ui(y, (unsigned)t->W[d]));
  }
}

static void free_exprs(tiler *t, exprs *e) {
  isl_aff_free(e->T);
  isl_aff_free(e->tt);
  isl_aff_free(e->K);
  for (int d = 1; d < t->n; d++) isl_aff_free(e->J[d]);
  isl_set_free(e->phase0);
}

/* A band of the given members (each on X, taken) inserted above node. */
static __isl_give isl_schedule_node *band(tiler *t, __isl_take isl_schedule_node *node, int n,
                                          isl_aff **members) {
  isl_union_pw_aff_list *list = isl_union_pw_aff_list_alloc(t->ctx, n);
  for (int i = 0; i < n; i++) list = isl_union_pw_aff_list_add(list, pull(t, members[i]));
  isl_space *space = isl_space_set_alloc(t->ctx, 0, n);
  node = isl_schedule_node_insert_partial_schedule(
      node, isl_multi_union_pw_aff_from_union_pw_aff_list(space, list));
  return node;
}

/* Below a phase's filter: the parallel mark, the tile bands and the points. */
static __isl_give isl_schedule_node *phase(tiler *t, __isl_take isl_schedule_node *leaf,
                                           const exprs *e) {
  isl_aff *k = isl_aff_copy(e->K), *pts[1 + MAX_SPACE], *js[MAX_SPACE];
  isl_schedule_node *node = isl_schedule_node_child(band(t, leaf, 1, &k), 0);
  node = isl_schedule_node_child(
      isl_schedule_node_insert_mark(node,
                                    isl_id_alloc(t->ctx, "spread_end", (void *)&sj_spread_end_tag)),
      0);
  int nj = 0;
  for (int d = 1; d < t->n; d++)
    if (t->W[d] < extent(t, d)) js[nj++] = isl_aff_copy(e->J[d]);
  if (nj) node = isl_schedule_node_child(band(t, node, nj, js), 0);
  for (int d = 0; d <= t->n; d++) pts[d] = var(t, d);
  node = band(t, node, 1 + t->n, pts);
  for (int up = 0; up < 2 + (nj > 0); up++) node = isl_schedule_node_parent(node);
  return isl_schedule_node_insert_mark(node,
                                       isl_id_alloc(t->ctx, "parallel", (void *)&sj_parallel_tag));
}

static __isl_give isl_schedule *build_tree(tiler *t) {
  exprs e;
  make_exprs(t, &e);
  isl_union_set *dom = isl_union_set_copy(t->m->domain);
  isl_union_set *first = pull_set(t, isl_set_copy(e.phase0));
  isl_union_set *second =
      isl_union_set_subtract(isl_union_set_copy(dom), isl_union_set_copy(first));
  isl_schedule *from = isl_schedule_from_domain(dom);
  isl_schedule_node *node = isl_schedule_node_child(isl_schedule_get_root(from), 0);
  isl_schedule_free(from); /* the node holds its own reference */
  isl_aff *time = isl_aff_copy(e.T);
  node = isl_schedule_node_child(band(t, node, 1, &time), 0);
  isl_union_set_list *phases = isl_union_set_list_alloc(t->ctx, 2);
  phases = isl_union_set_list_add(isl_union_set_list_add(phases, first), second);
  node = isl_schedule_node_insert_sequence(node, phases);
  for (int p = 0; p < 2; p++) {
    node = isl_schedule_node_child(isl_schedule_node_child(node, p), 0);
    node = phase(t, node, &e);
    node = isl_schedule_node_parent(isl_schedule_node_parent(node));
  }
  isl_schedule *s = isl_schedule_node_get_schedule(node);
  isl_schedule_node_free(node);
  free_exprs(t, &e);
  return s;
}

/* --- the full check (tests) --- */

/* Whether every conflict, mapped through the tree's flat schedule [T, p, K, J.., f, s..],
 * runs after its source: in a later band or phase, or in the same tile of a phase later. */
int sj_cpu_tiled_check(const sj_model *m, const sj_stencil *st, __isl_keep isl_schedule *s) {
  isl_union_map *map = isl_schedule_get_map(s);
  isl_union_map *rel = isl_union_map_apply_range(
      isl_union_map_apply_domain(forward_conflicts(m, st->folded), isl_union_map_copy(map)), map);
  isl_union_set *deltas = isl_union_map_deltas(rel);
  isl_bool none = isl_union_set_is_empty(deltas);
  if (none != isl_bool_false) {
    isl_union_set_free(deltas);
    return none < 0 ? -1 : 1;
  }
  isl_set *d = isl_set_from_union_set(deltas);
  int dims = (int)isl_set_dim(d, isl_dim_set);
  isl_space *space = isl_set_get_space(d);
  isl_set *good = isl_set_empty(isl_space_copy(space));
  /* d0 > 0; d0 = 0, d1 > 0; d0 = d1 = d2 = 0 and d3.. lexicographically positive */
  for (int lead = 0; lead < dims; lead++) {
    if (lead == 2) continue; /* same band and phase: the tile (d2) must be the same */
    isl_set *piece = isl_set_universe(isl_space_copy(space));
    for (int z = 0; z < lead; z++) piece = isl_set_fix_si(piece, isl_dim_set, z, 0);
    piece = isl_set_lower_bound_si(piece, isl_dim_set, lead, 1);
    good = isl_set_union(good, piece);
  }
  isl_space_free(space);
  isl_bool ok = isl_set_is_subset(d, good);
  isl_set_free(d);
  isl_set_free(good);
  return ok < 0 ? -1 : ok;
}

/* --- the choice --- */

static int fits_in_cache(tiler *t) {
  long l2 = cache_bytes(2);
  double bytes = bytes_per_point(t);
  for (int d = 0; d < t->n; d++) bytes *= (double)extent(t, d);
  return bytes <= (l2 > 0 ? l2 : 1 << 20);
}

static int attempt(tiler *t, const sj_cpu_options *o, sj_plan *plan, sj_buf *explain) {
  sj_tile_spec spec = {0};
  if (o->tile) sj_tile_spec_parse(o->tile, &spec, (char[8]){0}, 8); /* checked by the API */
  int forced = o->tiling == SJ_TILING_TIME;
  if (spec.off) return decline(t, "turned off (tile \"none\")");
  if (!t->st->is_stencil) return decline(t, "%s", t->st->why);
  if (isl_union_set_is_empty(t->m->domain) != isl_bool_false)
    return decline(t, "no statement instance runs");
  for (int i = 0; i < t->m->nstmts; i++) {
    int depth = t->m->stmts[i]->depth - 1;
    if (depth > MAX_SPACE) return decline(t, "more than %d space loops", MAX_SPACE);
    if (depth > t->n) t->n = depth;
  }
  t->x = calloc((size_t)(unsigned)t->m->nstmts + 1, sizeof *t->x);
  if (!t->x) return decline(t, "out of memory");
  for (int i = 0; i < t->m->nstmts; i++)
    if (!(t->x[i] = to_x(t, t->m->stmts[i]))) return -1;
  if (measure(t)) return -1;
  long steps = t->hi[0] - t->lo[0] + 1;
  if (!forced && steps < 2) return decline(t, "fewer than two time steps");
  if (!forced && fits_in_cache(t)) return decline(t, "the arrays fit in a core's L2 already");
  /* the conflicts in original order, after the cheap reasons not to tile: the whole model's
   * relation, a map per pair of statements (200 nests in a time loop: 0.9 GB) */
  if (t->m->nstmts > MAX_STMTS)
    return decline(t,
                   "more than %d statements (its legality check grows with the square of their "
                   "number)",
                   MAX_STMTS);
  t->conflicts = forward_conflicts(t->m, t->st->folded);
  if (!t->conflicts) return -1;
  int rc = slopes(t);
  if (rc) return rc;
  choose_sizes(t, &spec, o->nthreads, steps);
  /* what makes the tiles legal besides the slopes (see the top of the file) */
  if (t->B < (t->a + t->b) * (t->h - 1) || t->P < t->B)
    return decline(t, "no trapezoid fits h=%ld and w0=%ld", t->h, t->P / 2);
  isl_schedule *s = build_tree(t);
  if (!s) return -1;
  plan->schedule = s;
  sj_plan_add_tile(plan, t->h);
  sj_plan_add_tile(plan, t->P / 2);
  for (int d = 1; d < t->n; d++)
    sj_plan_add_tile(plan, t->W[d] < extent(t, d) ? t->W[d] : extent(t, d));
  sj_buf_printf(explain,
                "  time-tiled%s: bands of h=%ld steps; trapezoids along %s (period %ld, base %ld, "
                "reach +%d/-%d per step), two phases of %ld tiles each spread over the workers, "
                "one barrier per phase",
                forced ? " (JIT_TILING=time)" : "", t->h, dim_names[0], t->P, t->B, t->a, t->b,
                extent(t, 0) / t->P + 1);
  for (int d = 1; d < t->n; d++)
    if (t->W[d] < extent(t, d))
      sj_buf_printf(explain, "; parallelograms along %s of width %ld (skew %d)", dim_names[d],
                    t->W[d], t->c[d]);
  sj_buf_printf(explain,
                "; sizes %s%s (%s)\n  legality: isl checked that no dependence (every "
                "conflict of the model: memory-based, a superset of the exact ones) crosses a "
                "tile face backwards\n",
                o->tile ? "forced by " : "from the caches", o->tile ? o->tile : "", t->caches);
  return 0;
}

int sj_schedule_cpu_tiled(sj_model *m, const sj_stencil *st, const sj_cpu_options *o, sj_plan *plan,
                          sj_buf *explain, sj_buf *why) {
  tiler t;
  memset(&t, 0, sizeof t);
  t.m = m;
  t.st = st;
  t.ctx = m->ctx;
  t.why = why;
  unsigned long budget = isl_ctx_get_max_operations(m->ctx);
  isl_ctx_reset_operations(m->ctx);
  isl_ctx_set_max_operations(m->ctx, budget && budget < TILE_BUDGET ? budget : TILE_BUDGET);
  int rc = attempt(&t, o, plan, explain);
  if (rc < 0) {
    sj_buf_free(why);
    rc = isl_ctx_last_error(m->ctx) == isl_error_quota
             ? decline(&t, "it needs more than %lu isl operations", TILE_BUDGET)
             : decline(&t, "isl failed");
  }
  if (rc) isl_ctx_reset_error(m->ctx);
  isl_ctx_reset_operations(m->ctx);
  isl_ctx_set_max_operations(m->ctx, budget);
  if (t.x)
    for (int i = 0; i < m->nstmts; i++) isl_pw_multi_aff_free(t.x[i]);
  free(t.x);
  isl_union_map_free(t.conflicts);
  return rc;
}
