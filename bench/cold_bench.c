/* cold_bench: cold JIT, source text to PTX text, of the stencils of tests/kernels under the
 * per-step mapping and the two time tilings (issues 9 and 10), written as Markdown.
 *
 *   cold_bench [--out FILE.md] [--before OLD.md] [--reps R] [--only NAME]
 *
 * Each compile runs in a fresh context on the emulator device with the on-disk cache off.
 * Source to PTX is the sum of jit_kernel_stage_times' parse..print stages of
 * jit_kernel_compile (loading the module is not included). The phases come from the same
 * pipeline run stage by stage through the internal interfaces (model, dependences, tiling,
 * AST generation, lowering with the IR passes, PTX printing); its PTX is compared with the
 * library's, so both measure the same work. The machine is shared: the minimum over the
 * repetitions is what is reported, the median beside it, and the staged pipeline's CPU time
 * (the process's clock), which other processes inflate far less than they do wall time; the
 * speed-up against --before compares CPU times where both files have them. --before
 * adds the figures of an earlier run's file (its "<!-- cold ... -->" lines) and the speed-up. */
#include <stenciljit.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astgen/astgen.h"
#include "base/file.h"
#include "bench/common.h"
#include "jit/parse.h"
#include "ptx/ptx.h"

#ifndef SJ_KERNEL_DIR
#error "SJ_KERNEL_DIR must name tests/kernels"
#endif

enum { MAX_REPS = 31, MAX_INTS = 4, NPHASES = 7, NMAPS = 3, MAX_ROWS = 64 };

typedef struct bench_kernel {
  const char *file, *label;
  int nints;
  int ints[MAX_INTS]; /* the leading int parameters */
  int nptrs;          /* then the arrays */
} bench_kernel;

/* The sizes of the issues' targets: 1D 2^20 x 512, 2D 3072^2 x 128, 3D 384^3 x 128. */
static const bench_kernel kernels[] = {
    {"jacobi1d_3pt", "jacobi-1d 3pt 2^20, T=512", 2, {512, 1 << 20}, 1},
    {"jacobi1d_5pt", "jacobi-1d 5pt 2^20, T=512", 2, {512, 1 << 20}, 1},
    {"jacobi1d_7pt", "jacobi-1d 7pt 2^20, T=512", 2, {512, 1 << 20}, 1},
    {"jacobi2d_5pt", "jacobi-2d 3072², T=128", 3, {128, 3072, 3072}, 1},
    {"jacobi2d_polybench", "jacobi-2d PolyBench 3072², T=128", 2, {128, 3072}, 2},
    {"jacobi2d_copyback", "jacobi-2d copy-back 3072², T=128", 2, {128, 3072}, 2},
    {"heat2d_9pt", "heat-2d 9pt 3072², T=128", 3, {128, 3072, 3072}, 1},
    {"laplacian2d_iter", "laplacian-2d 3072², T=128", 3, {128, 3072, 3072}, 1},
    {"fdtd2d", "fdtd-2d 2048², T=128", 3, {128, 2048, 2048}, 4},
    {"heat3d_27pt", "heat-3d 27pt 384³, T=128", 4, {128, 384, 384, 384}, 1},
    {"laplacian3d_7pt", "laplacian-3d 7pt 384³, T=128", 4, {128, 384, 384, 384}, 1},
};

static const struct {
  const char *env, *name;
  sj_tiling tiling;
} maps[NMAPS] = {{"none", "per step", SJ_TILING_NONE},
                 {"hybrid", "hybrid", SJ_TILING_HYBRID},
                 {"split", "split", SJ_TILING_SPLIT}};

static const char *const phase_names[NPHASES] = {"parse", "model",    "dependences", "tiling",
                                                 "AST",   "lowering", "PTX print"};

typedef struct result {
  int ok, tiled, same_ptx;
  double ptx[MAX_REPS];            /* API: source to PTX text, ms */
  double cpu[MAX_REPS];            /* the staged pipeline's CPU time, ms */
  double phase[NPHASES][MAX_REPS]; /* the staged pipeline, ms */
  char why[256];
} result;

/* The ".version"/".target" operands of ptx (what the emulator device asked for). */
static void ptx_header(const char *ptx, const char *dir, char *out, size_t len) {
  const char *p = strstr(ptx, dir);
  snprintf(out, len, "%.*s", p ? (int)strcspn(p + strlen(dir), " \n") : 0,
           p ? p + strlen(dir) : "");
}

/* The CPU time of the process: what a compile costs whatever else the machine runs. */
static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One compile through jit_kernel_compile; the PTX (malloc'd) into *ptx. */
static int api_compile(const char *src, const jit_arg *args, int nargs, result *r, int rep,
                       char **ptx) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  if (!ctx) {
    snprintf(r->why, sizeof r->why, "jit_context_create: %.200s", jit_last_error());
    return -1;
  }
  jit_kernel *k = NULL;
  if (jit_kernel_compile(ctx, src, NULL, args, nargs, &k) != JIT_OK) {
    snprintf(r->why, sizeof r->why, "jit_kernel_compile: %.200s", jit_context_error(ctx));
    jit_context_destroy(ctx);
    return -1;
  }
  jit_stage_times t;
  jit_kernel_stage_times(k, &t);
  r->ptx[rep] = (t.parse + t.model + t.dependences + t.schedule + t.ast + t.print) / 1e3;
  const char *why = jit_kernel_schedule(k);
  r->tiled = why && strstr(why, "time tiling:") != NULL;
  *ptx = strdup(jit_kernel_code(k, JIT_CODE_PTX));
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  return 0;
}

/* The options jit/compile.c gives a compile's isl_ctx. */
static isl_ctx *compile_ctx(void) {
  isl_ctx *ictx = isl_ctx_alloc();
  isl_options_set_on_error(ictx, ISL_ON_ERROR_CONTINUE);
  isl_options_set_tile_scale_tile_loops(ictx, 0);
  isl_options_set_tile_shift_point_loops(ictx, 1);
  isl_ctx_set_max_operations(ictx, 100000000);
  return ictx;
}

/* The same compile stage by stage; 0 with the phases timed and *ptx its text. */
static int staged_compile(const char *src, const long *shape, sj_tiling tiling, const char *version,
                          const char *target, double *ph, double *cpu, char **ptx, sj_error *err) {
  double c0 = cpu_ms(), t0 = bench_now_ms();
  sj_program *prog = sj_parse(src, "bench", err);
  sj_func *fn = prog ? sj_program_entry(prog, NULL, err) : NULL;
  double t1 = bench_now_ms();
  ph[0] = t1 - t0;
  if (!fn) {
    sj_program_free(prog);
    return -1;
  }
  isl_ctx *ictx = compile_ctx();
  sj_model *m = NULL;
  sj_stencil st = {0};
  sj_plan plan = {0};
  sj_ir_module *ir = NULL;
  isl_ast_node *ast = NULL;
  int rc = sj_model_build(ictx, fn, shape, "bench", &m, err);
  double t2 = bench_now_ms();
  if (!rc) rc = sj_model_dependences(m, err);
  double t3 = bench_now_ms();
  if (!rc) {
    sj_stencil_recognize(m, &st);
    sj_gpu_device dev; /* the emulator presents an H100 */
    sj_gpu_device_h100(&dev);
    rc = sj_schedule_gpu(m, &st, tiling, NULL, &dev, &plan, err);
  }
  double t4 = bench_now_ms();
  if (!rc) rc = (ast = sj_ast_generate(plan.schedule)) ? 0 : -1;
  double t5 = bench_now_ms();
  if (!rc) rc = sj_lower_gpu(m, ast, 0, &ir, err);
  for (int i = 0; !rc && i < ir->nfuncs; i++) sj_ir_optimize(ir->funcs[i]);
  double t6 = bench_now_ms();
  if (!rc) rc = sj_print_ptx(ir, version, target, ptx, err);
  double t7 = bench_now_ms();
  *cpu = cpu_ms() - c0;
  double at[] = {t1, t2, t3, t4, t5, t6, t7};
  for (int i = 1; i < NPHASES; i++) ph[i] = at[i] - at[i - 1];
  sj_ir_module_free(ir);
  isl_ast_node_free(ast);
  sj_plan_clear(&plan);
  sj_stencil_clear(&st);
  sj_model_free(m);
  isl_ctx_free(ictx);
  sj_program_free(prog);
  return rc;
}

static void measure(const bench_kernel *bk, const char *src, int map, int reps, result *r) {
  jit_arg args[MAX_INTS + 4];
  long shape[MAX_INTS + 4] = {0};
  int nargs = 0;
  for (int i = 0; i < bk->nints; i++)
    shape[nargs] = bk->ints[i], args[nargs++] = JIT_INT(bk->ints[i]);
  for (int i = 0; i < bk->nptrs; i++) args[nargs++] = JIT_PTR(NULL);
  setenv("JIT_TILING", maps[map].env, 1);
  r->same_ptx = 1;
  for (int rep = 0; rep < reps; rep++) {
    char *api = NULL, *staged = NULL, version[16], target[16];
    if (api_compile(src, args, nargs, r, rep, &api)) return;
    ptx_header(api, ".version ", version, sizeof version);
    ptx_header(api, ".target ", target, sizeof target);
    double ph[NPHASES] = {0};
    sj_error err = {0, {0}};
    if (staged_compile(src, shape, maps[map].tiling, version, target, ph, &r->cpu[rep], &staged,
                       &err)) {
      snprintf(r->why, sizeof r->why, "staged compile: %.200s", err.msg);
      free(api);
      return;
    }
    for (int p = 0; p < NPHASES; p++) r->phase[p][rep] = ph[p];
    r->same_ptx &= strcmp(api, staged) == 0;
    free(api);
    free(staged);
  }
  r->ok = 1;
}

static double min_of(const double *v, int n) {
  double m = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] < m) m = v[i];
  return m;
}

static double median_of(const double *v, int n) {
  double c[MAX_REPS];
  memcpy(c, v, (size_t)n * sizeof *v);
  return bench_median(c, n);
}

static void loadavg(char *out, size_t len) {
  char *s = sj_read_file("/proc/loadavg", NULL);
  snprintf(out, len, "%.*s", s ? (int)strcspn(s, " ") : 1, s ? s : "?");
  free(s);
}

/* The minima an earlier run recorded for file and mapping: wall time (-1 if none) and CPU time
 * (-1 if none: files of the first version of this bench have none). */
static void before_ms(const char *old, const char *file, const char *map, double *wall,
                      double *cpu) {
  char key[128];
  snprintf(key, sizeof key, "<!-- cold %s %s ", file, map);
  const char *p = old ? strstr(old, key) : NULL;
  *wall = *cpu = -1;
  if (!p) return;
  char *end;
  *wall = strtod(p + strlen(key), &end);
  if (*end == ' ' && end[1] != '-') *cpu = strtod(end, NULL);
}

/* The target of issues 9 and 10 for a kernel and mapping, or NULL. */
static const char *target_of(const bench_kernel *bk, int map, double *limit) {
  int is3d = bk->nints == 4;
  if (map == 1 && !strcmp(bk->file, "heat2d_9pt")) return *limit = 50, "< 50 ms (issue 9)";
  if (map == 1 && !strcmp(bk->file, "heat3d_27pt")) return *limit = 100, "< 100 ms (issue 9)";
  if (map == 2 && is3d) return *limit = 100, "< 100 ms (issue 10)";
  return NULL;
}

static void report(const result *res, int nrows, const int *row_kernel, const int *row_map,
                   int reps, const char *old) {
  bench_md("| kernel | mapping | tiled | source → PTX min ms | median | CPU ms | CPU median |%s",
           old ? " before ms | before CPU ms | speed-up |" : "");
  for (int p = 0; p < NPHASES; p++) bench_md(" %s |", phase_names[p]);
  bench_md(" same PTX | target |\n|---|---|---|---:|---:|---:|---:|%s",
           old ? "---:|---:|---:|" : "");
  for (int p = 0; p < NPHASES; p++) bench_md("---:|");
  bench_md("---|---|\n");
  for (int i = 0; i < nrows; i++) {
    const result *r = &res[i];
    const bench_kernel *bk = &kernels[row_kernel[i]];
    int map = row_map[i];
    if (!r->ok) {
      bench_md("| %s | %s | failed: %s |\n", bk->label, maps[map].name, r->why);
      continue;
    }
    double lo = min_of(r->ptx, reps), limit = 0;
    bench_md("| %s | %s | %s | %.1f | %.1f | %.1f | %.1f |", bk->label, maps[map].name,
             map == 0   ? "—"
             : r->tiled ? "yes"
                        : "no (per step)",
             lo, median_of(r->ptx, reps), min_of(r->cpu, reps), median_of(r->cpu, reps));
    if (old) { /* the speed-up in CPU time where both runs have it: the load varies */
      double bw, bc, cpu = min_of(r->cpu, reps);
      before_ms(old, bk->file, maps[map].env, &bw, &bc);
      if (bw > 0)
        bench_md(" %.1f |", bw);
      else
        bench_md(" — |");
      if (bc > 0)
        bench_md(" %.1f | %.1f× (CPU) |", bc, bc / cpu);
      else if (bw > 0)
        bench_md(" — | %.1f× (wall) |", bw / lo);
      else
        bench_md(" — | — |");
    }
    for (int p = 0; p < NPHASES; p++) bench_md(" %.1f |", min_of(r->phase[p], reps));
    const char *t = target_of(bk, map, &limit);
    bench_md(" %s | %s%s |\n", r->same_ptx ? "yes" : "**no**", t ? t : "",
             t ? (lo < limit ? ": met" : ": **missed**") : "");
  }
  for (int i = 0; i < nrows; i++)
    if (res[i].ok)
      bench_md("<!-- cold %s %s %.2f %.2f -->\n", kernels[row_kernel[i]].file, maps[row_map[i]].env,
               min_of(res[i].ptx, reps), min_of(res[i].cpu, reps));
}

int main(int argc, char **argv) {
  const char *out = NULL, *only = NULL, *before = NULL;
  int reps = 5;
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && !strcmp(argv[i], "--out"))
      out = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--before"))
      before = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--only"))
      only = argv[++i];
    else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
      reps = atoi(argv[++i]);
    else {
      fprintf(stderr,
              "usage: cold_bench [--out FILE.md] [--before OLD.md] [--reps R] [--only NAME]\n");
      return 1;
    }
  }
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "cold_bench: --reps must be 1 to %d\n", MAX_REPS);
    return 1;
  }
  char *old = before ? sj_read_file(before, NULL) : NULL;
  if (before && !old) {
    fprintf(stderr, "cold_bench: cannot read %s\n", before);
    return 1;
  }
  if (out && bench_md_open(out)) {
    fprintf(stderr, "cold_bench: cannot write %s\n", out);
    return 1;
  }
  setenv("JIT_CACHE", "off", 1);
  /* the explanation is read only for its mapping: its exact dependences took a 3-D stencil's
   * compile several seconds after the timed part */
  setenv("JIT_EXPLAIN_DEPS", "0", 1);
  unsetenv("JIT_TILE");
  unsetenv("JIT_CHECK_TILES");
  char load0[32], load1[32];
  loadavg(load0, sizeof load0);
  static result res[MAX_ROWS];
  int row_kernel[MAX_ROWS], row_map[MAX_ROWS], nrows = 0;
  for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
    if (only && strcmp(only, kernels[k].file)) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.c", SJ_KERNEL_DIR, kernels[k].file);
    char *src = sj_read_file(path, NULL);
    if (!src) {
      fprintf(stderr, "cold_bench: cannot read %s\n", path);
      return 1;
    }
    for (int m = 0; m < NMAPS && nrows < MAX_ROWS; m++) {
      measure(&kernels[k], src, m, reps, &res[nrows]);
      fprintf(stderr, "%s %s: %.1f ms\n", kernels[k].file, maps[m].env,
              res[nrows].ok ? min_of(res[nrows].ptx, reps) : -1.0);
      row_kernel[nrows] = (int)k, row_map[nrows++] = m;
    }
    free(src);
  }
  loadavg(load1, sizeof load1);
  bench_md("# Cold JIT to PTX text: per step, hybrid and split\n\n");
  bench_md(
      "Written by `bench/cold_bench.c` (`cmake --build BUILD --target bench_cold_run`). Source "
      "text to PTX text on the emulator device (the PTX is what a GPU would load; nothing is "
      "run), a fresh context per compile, JIT_CACHE=off, default tile sizes. Minimum over %d "
      "compiles per row (the machine is shared), median beside it. Phases: the same "
      "pipeline stage by stage (minimum of each), lowering including the IR passes; CPU ms: "
      "that pipeline's CPU time (the process's clock, minimum), which a loaded machine "
      "inflates far less than wall time; \"same PTX\": its text equals the library's.\n\n",
      reps);
  char *lines = NULL;
  size_t nlines = 0;
  FILE *mem = open_memstream(&lines, &nlines);
  if (mem) {
    bench_machine_lines(mem);
    fclose(mem);
    bench_md("%s", lines);
  }
  free(lines);
  bench_md("- 1-minute load average: %s before, %s after (2 cores)\n", load0, load1);
  if (before) bench_md("- before: %s\n", before);
  bench_md("\n");
  report(res, nrows, row_kernel, row_map, reps, old);
  bench_md_close();
  free(old);
  return 0;
}
