/* Full tiles of the time-tiled GPU schedules (sched/full_tiles.c, astgen/lower_full.c):
 *   - the set: for hybrid and split tiles of several heights, widths, slopes and dimensions,
 *     over boxes that are and are not multiples of the tile and shorter in time than one band,
 *     sj_full_tiles holds exactly the tiles whose points lie inside the box along the
 *     dimensions asked for and that meet it along the others (checked against a projection of
 *     the tiles, the costly way);
 *   - the tiles keeping a value's readers (sched/liveout.c): sj_tiles_keeping, which tries the
 *     vertices of the distances' hull only, equals the tiles shifted by every distance;
 *   - the code: in jacobi-1d, jacobi-2d and heat-2d compiled for the emulator, the explanation
 *     counts the full tiles and says whether they have code of their own (where most tiles
 *     are full) or every tile's steps are unrolled with guards (at sizes where few or none
 *     are), the kernels say so and bound ptxas's registers, and below the full tiles' mark of
 *     the isl AST no guard tests anything but a thread's position (1-D: no guard at all) (the
 *     kernel tests run every stencil bit-identical at sizes with and without full tiles).
 * usage: full_tiles_test KERNEL_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>

#include "astgen/astgen.h"
#include "jit/parse.h"
#include "kernel_file.h"
#include "kernel_source.h"
#include "sched/hybrid.h"
#include "test_common.h"

/* --- the set --- */

/* { F : lo_d <= x_d <= hi_d } along dimension d of F = [t, s0, .., sn] (bounds: which of them). */
static __isl_give isl_set *bound(isl_ctx *ctx, int n, int d, long lo, long hi, int bounds) {
  isl_set *s = isl_set_universe(isl_space_set_alloc(ctx, 0, n + 2));
  if (bounds & 1) s = isl_set_lower_bound_si(s, isl_dim_set, d, (int)lo);
  if (bounds & 2) s = isl_set_upper_bound_si(s, isl_dim_set, d, (int)hi);
  return s;
}

/* The tiles (of, tile -> its points) some point of which lies in set. */
static __isl_give isl_set *touching(__isl_keep isl_map *of, __isl_take isl_set *set) {
  return isl_map_domain(isl_map_intersect_range(isl_map_copy(of), set));
}

static void check_full(isl_ctx *ctx, __isl_take isl_map *tiles, int n, const long *lo,
                       const long *hi, unsigned dims, const char *what) {
  isl_set *full = sj_full_tiles(tiles, n, lo, hi, dims);
  isl_map *of = isl_map_reverse(tiles);
  isl_set *want = isl_map_domain(isl_map_copy(of));
  for (int d = 0; d < n + 2; d++) {
    if (dims >> d & 1) { /* no point outside the box along d */
      isl_set *out = isl_set_complement(bound(ctx, n, d, lo[d], hi[d], 3));
      want = isl_set_subtract(want, touching(of, out));
    } else { /* a point at or above lo_d, and one at or below hi_d */
      want = isl_set_intersect(want, touching(of, bound(ctx, n, d, lo[d], 0, 1)));
      want = isl_set_intersect(want, touching(of, bound(ctx, n, d, 0, hi[d], 2)));
    }
  }
  isl_bool same = isl_set_is_equal(full, want);
  if (same != isl_bool_true) {
    char *a = isl_set_to_str(full), *b = isl_set_to_str(want);
    CHECK(0, "%s: full tiles %s, expected %s", what, a, b);
    free(a);
    free(b);
  }
  isl_set_free(full);
  isl_set_free(want);
  isl_map_free(of);
}

/* The tiles of every color of a hybrid (split: 0) or split tiling of cone c. */
static __isl_give isl_map *all_tiles(isl_ctx *ctx, const sj_cone *c, int split, int h,
                                     const long *w) {
  isl_map *all = NULL;
  if (split) {
    sj_split t;
    sj_split_shape(c, h, w, &t);
    for (int k = 0; k < 2 << c->n; k++) {
      isl_map *mine = sj_split_tiles(ctx, c, &t, k);
      all = all ? isl_map_union(all, mine) : mine;
    }
    return all;
  }
  sj_hex t;
  sj_buf why = {0};
  if (sj_hybrid_shape(c, h, w, &t, &why)) {
    sj_buf_free(&why);
    return NULL;
  }
  for (int p = 0; p < 2; p++) {
    isl_map *mine = sj_hybrid_tiles(ctx, c, &t, p);
    all = all ? isl_map_union(all, mine) : mine;
  }
  return all;
}

static void cone(sj_cone *c, int n, long up, long down, long skew) {
  memset(c, 0, sizeof *c);
  c->n = n;
  c->up_num = up, c->down_num = down, c->up_den = c->down_den = 1;
  for (int i = 0; i <= n; i++) {
    c->skew_num[i] = c->lead_num[i] = skew;
    c->skew_den[i] = c->lead_den[i] = 1;
  }
}

static void check_sets(isl_ctx *ctx) {
  /* boxes [lo, hi] of F per dimension count: long, a band shorter than one tile in time */
  static const long boxes[3][2][2][4] = {
      {{{0, 1}, {39, 97}}, {{0, 1}, {2, 70}}},
      {{{0, 1, 1}, {19, 30, 40}}, {{0, 0, 0}, {1, 44, 63}}},
      {{{0, 1, 1, 1}, {9, 14, 12, 33}}, {{0, 1, 1, 1}, {1, 14, 12, 33}}}};
  static const long widths[3][3] = {{7, 0, 0}, {5, 8, 0}, {4, 3, 6}};
  for (int n = 0; n < 3; n++)
    for (int split = 0; split < 2; split++)
      for (int h = 1; h <= 3; h += 2)
        for (int asym = 0; asym < 2; asym++) {
          sj_cone c;
          cone(&c, n, 1 + asym, 1, 1);
          isl_map *tiles = all_tiles(ctx, &c, split, h, widths[n]);
          if (!tiles) continue;
          for (int b = 0; b < 2; b++)
            for (unsigned dims = 0; dims < 2u << (n + 1); dims += 1 + (n > 0)) {
              char what[128];
              snprintf(what, sizeof what, "%s n=%d h=%d %s box %d dims %#x",
                       split ? "split" : "hybrid", n, h, asym ? "asymmetric" : "symmetric", b,
                       dims);
              check_full(ctx, isl_map_copy(tiles), n, boxes[n][b][0], boxes[n][b][1], dims, what);
            }
          isl_map_free(tiles);
        }
}

/* --- the tiles that keep a value's readers (sched/liveout.c) --- */

typedef struct keep_arg {
  isl_map *tiles, *inside;
} keep_arg;

/* inside &= the tiles shifted by distance d */
static isl_stat keep_one(__isl_take isl_point *d, void *user) {
  keep_arg *a = user;
  isl_space *space = isl_space_map_from_set(isl_space_domain(isl_map_get_space(a->tiles)));
  isl_multi_aff *plus = isl_multi_aff_identity(space);
  for (int k = 0; k < (int)isl_multi_aff_dim(plus, isl_dim_out); k++)
    plus = isl_multi_aff_set_at(
        plus, k,
        isl_aff_add_constant_val(isl_multi_aff_get_at(plus, k),
                                 isl_point_get_coordinate_val(d, isl_dim_set, k)));
  isl_point_free(d);
  a->inside =
      isl_map_intersect(a->inside, isl_map_preimage_domain_multi_aff(isl_map_copy(a->tiles), plus));
  return a->inside ? isl_stat_ok : isl_stat_error;
}

/* sj_tiles_keeping, which tries only the vertices of the distances' hull where the tiles are
 * convex, against a shift of the tiles by every distance. */
static void check_keeping(isl_ctx *ctx) {
  /* distances [dt, d0, ..] per space dimension count: a box, a cross, asymmetric ones */
  static const char *const reach[3][3] = {
      {"{ [1, d] : -1 <= d <= 1 }", "{ [1, 1]; [2, -3]; [1, 0]; [2, -1] }",
       "{ [dt, d] : 1 <= dt <= 2 and -2 <= d <= 2 }"},
      {"{ [1, a, b] : -1 <= a <= 1 and -1 <= b <= 1 }",
       "{ [1, a, b] : -2 <= a + b <= 2 and -2 <= a - b <= 2 }",
       "{ [1, 1, 0]; [2, -3, 1]; [1, 0, 0] }"},
      {"{ [1, a, b, c] : -1 <= a <= 1 and -1 <= b <= 1 and -1 <= c <= 1 }",
       "{ [1, a, b, c] : -1 <= a + b + c <= 1 and -1 <= a - b + c <= 1 and -1 <= a + b - c <= 1 "
       "and "
       "-1 <= -a + b + c <= 1 }",
       "{ [2, 0, 0, 0]; [1, 1, 0, -1]; [1, -1, 1, 0] }"}};
  static const long widths[3][3] = {{7, 0, 0}, {5, 8, 0}, {4, 3, 6}};
  int checked = 0;
  for (int n = 0; n < 3; n++)
    for (int split = 0; split < 2; split++)
      for (int asym = 0; asym < 2; asym++) {
        sj_cone c;
        cone(&c, n, 2 + asym, 2, 2);
        isl_map *tiles = all_tiles(ctx, &c, split, 3, widths[n]);
        for (int r = 0; tiles && r < 3; r++) {
          isl_set *d = isl_set_read_from_str(ctx, reach[n][r]);
          isl_map *fast = sj_tiles_keeping(tiles, d);
          keep_arg k = {tiles, isl_map_copy(tiles)};
          isl_map *want =
              isl_set_foreach_point(d, keep_one, &k) < 0 ? isl_map_free(k.inside) : k.inside;
          CHECK(fast && want && isl_map_is_equal(fast, want) == isl_bool_true,
                "%s n=%d %s: the tiles keeping %s differ", split ? "split" : "hybrid", n,
                asym ? "asymmetric" : "symmetric", reach[n][r]);
          checked += fast && want;
          isl_map_free(fast);
          isl_map_free(want);
          isl_set_free(d);
        }
        isl_map_free(tiles);
      }
  CHECK(checked >= 24, "only %d tilings keeping distances checked", checked);
}

/* --- the code --- */

typedef struct ast_scan {
  int in_full;   /* below a full_tile mark */
  int marks;     /* full_tile marks seen */
  int guards;    /* ifs below them on anything but thread ids */
  int any_guard; /* ifs below them */
} ast_scan;

/* Whether e mentions a thread id. */
static int mentions_thread(__isl_keep isl_ast_expr *e) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    isl_id *id = isl_ast_expr_get_id(e);
    const sj_id_kind *tag = isl_id_get_user(id);
    int thread = tag && *tag == SJ_ID_THREAD;
    isl_id_free(id);
    return thread;
  }
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return 0;
  int found = 0;
  for (int i = 0; i < isl_ast_expr_op_get_n_arg(e) && !found; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    found = mentions_thread(a);
    isl_ast_expr_free(a);
  }
  return found;
}

/* Every condition of a conjunction mentions a thread id. */
static int on_threads(__isl_keep isl_ast_expr *e) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_op &&
      (isl_ast_expr_op_get_type(e) == isl_ast_expr_op_and ||
       isl_ast_expr_op_get_type(e) == isl_ast_expr_op_and_then)) {
    int all = 1;
    for (int i = 0; i < isl_ast_expr_op_get_n_arg(e) && all; i++) {
      isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
      all = on_threads(a);
      isl_ast_expr_free(a);
    }
    return all;
  }
  return mentions_thread(e);
}

static void scan(__isl_keep isl_ast_node *node, ast_scan *s);

static void scan_list(__isl_take isl_ast_node_list *list, ast_scan *s) {
  for (int i = 0; i < isl_ast_node_list_n_ast_node(list); i++) {
    isl_ast_node *child = isl_ast_node_list_get_ast_node(list, i);
    scan(child, s);
    isl_ast_node_free(child);
  }
  isl_ast_node_list_free(list);
}

static void scan(__isl_keep isl_ast_node *node, ast_scan *s) {
  isl_ast_node *child = NULL;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    child = isl_ast_node_for_get_body(node);
    break;
  case isl_ast_node_if: {
    isl_ast_expr *cond = isl_ast_node_if_get_cond(node);
    s->any_guard += s->in_full;
    s->guards += s->in_full && !on_threads(cond);
    isl_ast_expr_free(cond);
    child = isl_ast_node_if_get_then_node(node);
    if (isl_ast_node_if_has_else_node(node)) {
      isl_ast_node *other = isl_ast_node_if_get_else_node(node);
      scan(other, s);
      isl_ast_node_free(other);
    }
    break;
  }
  case isl_ast_node_block:
    scan_list(isl_ast_node_block_get_children(node), s);
    return;
  case isl_ast_node_mark: {
    isl_id *id = isl_ast_node_mark_get_id(node);
    const sj_mapped_id *tag = isl_id_get_user(id);
    int full = tag && tag->tag == SJ_ID_VERSION && tag->dim == 1;
    isl_id_free(id);
    s->marks += full;
    s->in_full += full;
    child = isl_ast_node_mark_get_node(node);
    scan(child, s);
    isl_ast_node_free(child);
    s->in_full -= full;
    return;
  }
  default:
    return;
  }
  scan(child, s);
  isl_ast_node_free(child);
}

/* The isl AST of file (under JIT_TILING=tiling) for shape, through the library's stages. */
static void check_ast(const char *dir, const char *file, const char *tiling, const long *shape,
                      int want_marks, int threads_only) {
  const char *tile = getenv("JIT_TILE");
  sj_kernel_source ks;
  sj_kernel_source_load(&ks, dir, file);
  sj_func *fn = ks.fn;
  sj_error err = ks.err;
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  sj_model *m = NULL;
  sj_stencil st = {0};
  sj_plan plan = {0};
  int rc = fn ? sj_model_build(ctx, fn, shape, file, &m, &err) : -1;
  if (!rc) rc = sj_model_dependences(m, &err);
  if (!rc) {
    sj_stencil_recognize(m, &st);
    sj_gpu_device dev;
    sj_gpu_device_h100(&dev);
    sj_tiling t = strcmp(tiling, "split") ? SJ_TILING_HYBRID : SJ_TILING_SPLIT;
    rc = sj_schedule_gpu(m, &st, t, tile, &dev, &plan, &err);
  }
  isl_ast_node *ast = rc ? NULL : sj_ast_generate(plan.schedule);
  CHECK(ast, "%s %s: no AST: %s", file, tiling, err.msg);
  if (ast) {
    ast_scan s = {0, 0, 0, 0};
    scan(ast, &s);
    CHECK(want_marks ? s.marks > 0 : s.marks == 0, "%s %s: %d full tiles' versions", file, tiling,
          s.marks);
    CHECK(!s.guards, "%s %s: %d guards in full tiles' code on more than a thread's position", file,
          tiling, s.guards);
    CHECK(!threads_only || !s.any_guard, "%s %s: %d guards in a full tile's 1-D code", file, tiling,
          s.any_guard);
  }
  isl_ast_node_free(ast);
  sj_plan_clear(&plan);
  sj_stencil_clear(&st);
  sj_model_free(m);
  isl_ctx_free(ctx);
  sj_kernel_source_free(&ks);
}

/* What the kernels' tiles get: code of their own for the full ones (in some kernel, where most
 * are full), every tile's steps unrolled with guards (in every kernel: few are full), and that
 * with no full tile at all. */
enum { OWN, GUARDED, NONE };

/* file compiled for the emulator: the explanation's count of full tiles (in each kernel's
 * middle launch) and choice, and the PTX's unrolling and bound on registers. */
static void check_compile(const char *dir, const char *file, const char *tiling, const int *ints,
                          int n, int want) {
  setenv("JIT_TILING", tiling, 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  jit_kernel *k = NULL;
  int st = sj_compile_kernel_file(ctx, dir, file, ints, n, &k);
  CHECK(st == 0, "%s %s: %s", file, tiling, ctx ? jit_context_error(ctx) : jit_last_error());
  if (!st) {
    const char *why = jit_kernel_schedule(k), *ptx = jit_kernel_code(k, JIT_CODE_PTX);
    long full = 0, all = 0;
    for (const char *p = why; (p = strstr(p, " tiles full in launch")); p++) {
      const char *q = p;
      while (q > why && q[-1] != '\n') q--;
      long a, b;
      if (sscanf(q, " %ld of %ld", &a, &b) == 2) full += a, all += b;
    }
    CHECK(all > 0, "%s %s: the explanation counts no tiles:\n%s", file, tiling, why);
    CHECK(want == NONE ? full == 0 : full > 0, "%s %s: %ld of %ld tiles full", file, tiling, full,
          all);
    int own = strstr(why, "their steps in code of their own") != NULL;
    int guarded = strstr(why, "with a guard where the instances cut them") != NULL;
    CHECK(want == OWN ? own : guarded && !own, "%s %s: the explanation chose %s:\n%s", file, tiling,
          own ? "code of their own" : "guards", why);
    const char *text = want == OWN ? "full tiles' code unrolled at level" : "tiles' steps unrolled";
    CHECK(strstr(ptx, text) && strstr(ptx, ".maxnreg "), "%s %s: the PTX has no \"%s\"", file,
          tiling, text);
  }
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  unsetenv("JIT_TILING");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: full_tiles_test KERNEL_DIR\n");
    return 2;
  }
  setenv("JIT_CACHE", "off", 1);
  isl_ctx *ctx = isl_ctx_alloc();
  check_sets(ctx);
  check_keeping(ctx);
  isl_ctx_free(ctx);
  const char *dir = argv[1];
  const int j1[] = {64, 4096}, j2[] = {16, 200, 300}, big2[] = {32, 1024, 1024},
            small2[] = {4, 9, 11};
  const long l1[] = {64, 4096}, l2[] = {16, 200, 300}, lbig2[] = {32, 1024, 1024};
  static const char *const tilings[] = {"hybrid", "split"};
  for (int i = 0; i < 2; i++) {
    /* split tiles at sizes of which most are full: the model's own take the whole run in one
     * band of 5 tiles, 3 of them full */
    if (i) setenv("JIT_TILE", "h=16,w=128", 1);
    check_compile(dir, "jacobi1d_3pt.c", tilings[i], j1, 2, OWN);
    check_ast(dir, "jacobi1d_3pt.c", tilings[i], l1, 1, 1);
    unsetenv("JIT_TILE");
    check_compile(dir, "jacobi2d_5pt.c", tilings[i], small2, 3, NONE);
  }
  check_compile(dir, "jacobi2d_5pt.c", "hybrid", j2, 3, OWN);
  check_compile(dir, "heat2d_9pt.c", "hybrid", j2, 3, OWN);
  check_compile(dir, "jacobi2d_5pt.c", "split", j2, 3, GUARDED); /* a third of the tiles full */
  check_compile(dir, "heat2d_9pt.c", "split", big2, 3, OWN);
  check_ast(dir, "jacobi2d_5pt.c", "hybrid", l2, 1, 0);
  check_ast(dir, "jacobi2d_5pt.c", "split", lbig2, 1, 0);
  printf("%s: %s\n", argv[0], g_fail ? "FAILED" : "ok");
  return g_fail;
}
