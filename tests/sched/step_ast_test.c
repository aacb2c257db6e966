/* The per-step kernel's AST built without isl's generator (astgen/step_ast.c) against isl's:
 * for every kernel of tests/kernels at every `// run:` size and a few more (1-point
 * interiors, T=0, T=1, extents not a multiple of the block), mapped per step, the two ASTs
 * print the same and lower to the same PTX (but where nests share launches: the kernel tests
 * check those); jacobi-2d's per-step trees take the fast path, so do those of several
 * statements in one host loop (PolyBench jacobi-2d, fdtd-2d), and a kernel whose domain is not
 * a box falls back to isl.
 * usage: step_ast_test KERNEL_DIR */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/ctx.h>
#include <isl/options.h>

#include "astgen/astgen.h"
#include "jit/parse.h"
#include "ptx/ptx.h"
#include "kernel_source.h"
#include "test_common.h"

enum { MAX_PARAMS = 16 };

static char *ptx_of(const sj_model *m, __isl_keep isl_ast_node *ast) {
  sj_ir_module *ir = NULL;
  sj_error err = {0, {0}};
  char *ptx = NULL;
  if (!sj_lower_gpu(m, ast, 0, &ir, &err)) {
    for (int i = 0; i < ir->nfuncs; i++) sj_ir_optimize(ir->funcs[i]);
    if (sj_print_ptx(ir, "8.0", "sm_80", &ptx, &err)) ptx = NULL;
  }
  sj_ir_module_free(ir);
  return ptx;
}

/* fn mapped per step at the sizes of text ("T=2 N=3 ..."): 1 when the fast path built the
 * AST, 0 when isl did, -1 when the kernel does not compile at that size. */
static int check_size(const char *file, const sj_func *fn, const char *text) {
  long shape[MAX_PARAMS] = {0};
  for (int p = 0; p < fn->nparams && p < MAX_PARAMS; p++) {
    char key[80];
    snprintf(key, sizeof key, " %s=", fn->params[p]->name);
    const char *at = strstr(text, key);
    if (at) shape[p] = strtol(at + strlen(key), NULL, 10);
  }
  isl_ctx *ctx = isl_ctx_alloc();
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  sj_error err = {0, {0}};
  sj_model *m = NULL;
  sj_stencil st = {0};
  sj_plan plan = {0};
  int rc = sj_model_build(ctx, fn, shape, file, &m, &err);
  if (!rc) rc = sj_model_dependences(m, &err);
  if (!rc) {
    sj_stencil_recognize(m, &st);
    sj_gpu_device dev;
    sj_gpu_device_h100(&dev);
    rc = sj_schedule_gpu(m, &st, SJ_TILING_NONE, NULL, &dev, &plan, &err);
  }
  int fast = -1;
  if (!rc) {
    isl_ast_node *mine = sj_ast_step(plan.schedule);
    /* falling back must leave no error behind: the compile would be refused */
    CHECK(isl_ctx_last_error(ctx) == isl_error_none, "%s %s: isl error %s", file, text,
          isl_ctx_last_error_msg(ctx));
    isl_ast_node *isl = sj_ast_generate_isl(plan.schedule);
    fast = mine != NULL;
    /* where nests share launches, each statement's points are guarded alone, not as isl
     * separates them: not isl's AST, and the kernel tests check what it computes */
    if (mine && isl && !st.launch) {
      char *a = isl_ast_node_to_C_str(mine), *b = isl_ast_node_to_C_str(isl);
      CHECK(a && b && !strcmp(a, b), "%s %s: the ASTs differ:\n%s\nisl's:\n%s", file, text, a, b);
      char *pa = ptx_of(m, mine), *pb = ptx_of(m, isl);
      CHECK(pa && pb && !strcmp(pa, pb), "%s %s: the PTX differs", file, text);
      free(a), free(b), free(pa), free(pb);
    }
    CHECK(isl, "%s %s: no AST from isl", file, text);
    isl_ast_node_free(mine);
    isl_ast_node_free(isl);
  }
  sj_plan_clear(&plan);
  sj_stencil_clear(&st);
  sj_model_free(m);
  isl_ctx_free(ctx);
  return fast;
}

typedef struct tally {
  int fast, slow;
} tally;

/* extra: sizes beyond the run lines, the first nfast of them built by the fast path. */
static void check_file(const char *dir, const char *file, const char *const *extra, int nfast,
                       tally *t) {
  sj_kernel_source ks;
  sj_kernel_source_load(&ks, dir, file);
  sj_func *fn = ks.fn;
  for (const char *p = ks.src; fn && (p = strstr(p, "// run:")); p++) {
    char line[256];
    snprintf(line, sizeof line, " %.*s", (int)strcspn(p + 7, "\n"), p + 7);
    int r = check_size(file, fn, line);
    t->fast += r == 1, t->slow += r == 0;
  }
  for (int i = 0; fn && extra && extra[i]; i++) {
    char line[256];
    snprintf(line, sizeof line, " %s", extra[i]);
    int r = check_size(file, fn, line);
    CHECK(r == 1 || i >= nfast, "%s %s: isl built the per-step AST", file, extra[i]);
    CHECK(r >= 0, "%s %s: no per-step schedule", file, extra[i]);
  }
  sj_kernel_source_free(&ks);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/kernels";
  /* the bench's sizes, a 1-point interior along i, T=1, extents off the block; then T=0 (no
   * instance: isl's empty AST), a 1-point interior (one thread) and more extents off the
   * block, where isl may build the AST */
  static const char *const jacobi[] = {
      "T=2 N=1024 M=1024", "T=100 N=4096 M=4096", "T=2 N=3 M=1000",    "T=1 N=64 M=64",
      "T=2 N=37 M=101",    "T=0 N=64 M=64",       "T=2 N=3 M=3",       "T=2 N=130 M=4099",
      "T=3 N=1000 M=35",   "T=2 N=4099 M=130",    "T=1 N=1025 M=1025", NULL};
  tally t = {0, 0};
  check_file(dir, "jacobi2d_5pt.c", jacobi, 5, &t);
  DIR *d = opendir(dir);
  CHECK(d, "cannot open %s", dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n > 2 && !strcmp(e->d_name + n - 2, ".c")) check_file(dir, e->d_name, NULL, 0, &t);
  }
  if (d) closedir(d);
  /* several statements, a kernel each in one host loop, or several a kernel (fdtd-2d's nests
   * share launches): the bench's sizes take the fast path */
  static const char *const polybench[] = {"T=128 N=3072", "T=1 N=64", NULL};
  static const char *const fdtd[] = {"T=128 NX=2048 NY=2048", "T=1 NX=64 NY=256", NULL};
  tally multi = {0, 0};
  check_file(dir, "jacobi2d_polybench.c", polybench, 2, &multi);
  check_file(dir, "fdtd2d.c", fdtd, 2, &multi);
  /* a triangular domain is no box: isl builds it (at N=2 each statement has one point, a box) */
  sj_kernel_source lu;
  sj_kernel_source_load(&lu, dir, "lu_right.c");
  for (int i = 0; lu.fn && i < 2; i++) {
    const char *size = i ? " N=49" : " N=17";
    CHECK(check_size("lu_right.c", lu.fn, size) == 0, "lu_right%s: not built by isl", size);
  }
  sj_kernel_source_free(&lu);
  CHECK(t.fast > 20, "only %d per-step ASTs took the fast path (%d by isl)", t.fast, t.slow);
  printf("step_ast: %d ASTs built directly, %d by isl\n", t.fast, t.slow);
  return g_fail;
}
