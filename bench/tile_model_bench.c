/* tile_model_bench: the GPU tile model (sched/tile_model.h) beside what was measured.
 *   1. the H100 kernel times of bench/results/gpu-NVIDIA-H100-80GB-HBM3.md (per step, hybrid and
 *      split with the sizes and blocks that ran) against the model's times;
 *   2. the emulator's counts of bench/results/tiling.md (instructions and L2-model DRAM bytes
 *      per update) against the model's;
 *   3. what the model chooses now, unstaged and staged, with its top candidates.
 * Each stencil goes through the compiler's own front end, model and stencil recognition, so the
 * model reads what a compile reads. Writes markdown to --out FILE (default stdout).
 * usage: tile_model_bench [--out FILE] */
#include <isl/ctx.h>
#include <isl/options.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/file.h"
#include "jit/parse.h"
#include "sched/tile_model.h"

#ifndef SJ_KERNEL_DIR
#define SJ_KERNEL_DIR "tests/kernels"
#endif

enum { REPEATS = 5 }; /* the CPU times: the median of this many */

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *ms) {
  qsort(ms, REPEATS, sizeof *ms, by_value);
  return ms[REPEATS / 2];
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The model's input for file at the integer arguments ints (in parameter order), with the exact
 * cone; *bound_ms: what reading it with the bound of the cone took, as a compile does. */
static int read_stencil(const char *file, const long *ints, int nints, sj_tm_stencil *out,
                        double *bound_ms) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", SJ_KERNEL_DIR, file);
  char *src = sj_read_file(path, NULL);
  sj_error err = {0, {0}};
  sj_program *prog = src ? sj_parse(src, path, &err) : NULL;
  sj_func *fn = prog ? sj_program_entry(prog, NULL, &err) : NULL;
  int rc = -1;
  if (fn) {
    long shape[16] = {0};
    for (int i = 0, k = 0; i < fn->nparams && i < 16; i++)
      if (fn->params[i]->kind != SJ_SYM_ARRAY && k < nints) shape[i] = ints[k++];
    isl_ctx *ctx = isl_ctx_alloc();
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
    sj_model *m = NULL;
    sj_stencil st;
    sj_buf why = {0};
    if (!sj_model_build(ctx, fn, shape, path, &m, &err) && !sj_model_dependences(m, &err)) {
      sj_stencil_recognize(m, &st);
      double t0 = now_ms();
      rc = st.is_stencil ? sj_tm_read(m, &st, 0, out, &why, &err) : -1;
      if (bound_ms) *bound_ms = now_ms() - t0; /* once: isl keeps what it learnt of the sets */
      if (!rc) rc = sj_tm_exact_cone(m, &st, out, &why) ? 0 : -1;
      sj_stencil_clear(&st);
    }
    sj_buf_free(&why);
    sj_model_free(m);
    isl_ctx_free(ctx);
  }
  if (rc) fprintf(stderr, "tile_model_bench: %s: %s\n", file, err.msg);
  if (prog) sj_program_free(prog);
  free(src);
  return rc;
}

typedef struct measured_case {
  const char *name, *file;
  long ints[4];
  int nints;
  sj_tm_candidate c;
  double value[3]; /* H100: ms; emulator: instructions per update, L2-model DRAM B/update */
} measured_case;

#define PS                                                                                         \
  { SJ_TM_PER_STEP, 0, {0}, {0}, 0, 1 }
#define HY(h, a, b, c, x, y, z)                                                                    \
  { SJ_TM_HYBRID, h, {a, b, c}, {x, y, z}, 0, 1 }
#define SP(h, a, b, c, x, y, z)                                                                    \
  { SJ_TM_SPLIT, h, {a, b, c}, {x, y, z}, 0, 1 }

/* bench/results/gpu-NVIDIA-H100-80GB-HBM3.md, 2026-11-24 13:51 UTC (T = 100, median ms) */
static const measured_case h100[] = {
    {"jacobi-2d 4096²", "jacobi2d_5pt.c", {100, 4096, 4096}, 3, PS, {6.002}},
    {"jacobi-2d 4096²",
     "jacobi2d_5pt.c",
     {100, 4096, 4096},
     3,
     HY(7, 32, 64, 0, 32, 8, 1),
     {6.137}},
    {"jacobi-2d 4096²",
     "jacobi2d_5pt.c",
     {100, 4096, 4096},
     3,
     SP(4, 8, 32, 0, 32, 8, 1),
     {12.841}},
    {"heat-2d 4096²", "heat2d_9pt.c", {100, 4096, 4096}, 3, PS, {6.962}},
    {"heat-2d 4096²", "heat2d_9pt.c", {100, 4096, 4096}, 3, HY(7, 32, 64, 0, 32, 8, 1), {6.997}},
    {"heat-2d 4096²", "heat2d_9pt.c", {100, 4096, 4096}, 3, SP(4, 8, 32, 0, 32, 8, 1), {13.384}},
    {"heat-3d 256³", "heat3d_27pt.c", {100, 256, 256, 256}, 4, PS, {11.612}},
    {"heat-3d 256³", "heat3d_27pt.c", {100, 256, 256, 256}, 4, HY(2, 8, 8, 32, 32, 4, 2), {16.922}},
    {"heat-3d 256³", "heat3d_27pt.c", {100, 256, 256, 256}, 4, SP(2, 4, 4, 32, 32, 4, 2), {29.074}},
    {"jacobi-2d 1024²", "jacobi2d_5pt.c", {100, 1024, 1024}, 3, PS, {0.462}},
    {"heat-2d 1024²", "heat2d_9pt.c", {100, 1024, 1024}, 3, PS, {0.529}},
};

/* bench/results/tiling.md (emulator, default sizes of the time: the blocks of sched/hybrid.c then)
 */
static const measured_case emulated[] = {
    {"jacobi-1d 2^20, T=64", "jacobi1d_3pt.c", {64, 1 << 20}, 2, PS, {12.25, 8.000}},
    {"jacobi-1d 2^20, T=64",
     "jacobi1d_3pt.c",
     {64, 1 << 20},
     2,
     HY(7, 128, 0, 0, 128, 1, 1),
     {49.60, 0.938}},
    {"jacobi-1d 2^20, T=64",
     "jacobi1d_3pt.c",
     {64, 1 << 20},
     2,
     SP(8, 128, 0, 0, 128, 1, 1),
     {42.04, 1.685}},
    {"jacobi-2d 3072², T=16", "jacobi2d_5pt.c", {16, 3072, 3072}, 3, PS, {21.51, 8.008}},
    {"jacobi-2d 3072², T=16",
     "jacobi2d_5pt.c",
     {16, 3072, 3072},
     3,
     HY(7, 32, 64, 0, 32, 8, 1),
     {38.72, 1.738}},
    {"jacobi-2d 3072², T=16",
     "jacobi2d_5pt.c",
     {16, 3072, 3072},
     3,
     SP(4, 8, 32, 0, 32, 8, 1),
     {59.86, 5.269}},
    {"heat-2d 3072², T=16", "heat2d_9pt.c", {16, 3072, 3072}, 3, PS, {30.51, 8.008}},
    {"heat-2d 3072², T=16",
     "heat2d_9pt.c",
     {16, 3072, 3072},
     3,
     HY(7, 32, 64, 0, 32, 8, 1),
     {47.72, 1.744}},
    {"heat-2d 3072², T=16",
     "heat2d_9pt.c",
     {16, 3072, 3072},
     3,
     SP(4, 8, 32, 0, 32, 8, 1),
     {68.86, 5.304}},
    {"fdtd-2d 2048², T=16", "fdtd2d.c", {16, 2048, 2048}, 3, PS, {14.08, 13.337}},
    {"fdtd-2d 2048², T=16",
     "fdtd2d.c",
     {16, 2048, 2048},
     3,
     HY(7, 32, 64, 0, 32, 8, 1),
     {31.82, 2.979}},
    {"fdtd-2d 2048², T=16",
     "fdtd2d.c",
     {16, 2048, 2048},
     3,
     SP(4, 8, 32, 0, 32, 8, 1),
     {44.38, 10.567}},
    {"heat-3d 192³, T=12", "heat3d_27pt.c", {12, 192, 192, 192}, 4, PS, {77.77, 8.170}},
    {"heat-3d 192³, T=12",
     "heat3d_27pt.c",
     {12, 192, 192, 192},
     4,
     HY(2, 8, 8, 32, 32, 4, 2),
     {97.88, 6.068}},
    {"heat-3d 192³, T=12",
     "heat3d_27pt.c",
     {12, 192, 192, 192},
     4,
     SP(2, 4, 4, 32, 32, 4, 2),
     {108.36, 12.113}},
};

static void sizes(char *buf, size_t cap, const sj_tm_cost *c) {
  if (c->c.kind == SJ_TM_PER_STEP) {
    snprintf(buf, cap, "per step, %ux%ux%u", c->c.block[0], c->c.block[1], c->c.block[2]);
    return;
  }
  int n = snprintf(buf, cap, "%s h=%d w=%ld", sj_tm_kind_names[c->c.kind], c->c.h, c->c.w[0]);
  for (int d = 1; d < 3 && c->c.w[d]; d++)
    n += snprintf(buf + n, cap - (size_t)n, "x%ld", c->c.w[d]);
  snprintf(buf + n, cap - (size_t)n, ", %ux%ux%u%s", c->c.block[0], c->c.block[1], c->c.block[2],
           c->c.staged ? ", staged" : "");
}

/* The cost of case k, NULL when its stencil cannot be read. */
static int cost_of(const measured_case *k, const sj_gpu_device *d, sj_tm_cost *out) {
  sj_tm_stencil s;
  if (read_stencil(k->file, k->ints, k->nints, &s, NULL)) return -1;
  if (sj_tm_evaluate(&s, &k->c, d, out)) {
    fprintf(stderr, "tile_model_bench: %s: %s\n", k->name, out->why);
    return -1;
  }
  return 0;
}

static void h100_table(FILE *f, const sj_gpu_device *d) {
  fprintf(f, "| stencil | mapping, block | blocks per launch (with work / grid) | launches | model "
             "DRAM B/update | model ms | **H100 measured ms** | model / measured |\n"
             "|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof h100 / sizeof *h100; i++) {
    sj_tm_cost c;
    char what[96];
    if (cost_of(&h100[i], d, &c)) continue;
    sizes(what, sizeof what, &c);
    fprintf(f, "| %s | %s | %.0f / %ld | %ld | %.2f | %.3f | **%.3f** | %.2f |\n", h100[i].name,
            what, c.active, c.grid, c.launches, c.bytes_per_update, c.time * 1e3, h100[i].value[0],
            c.time * 1e3 / h100[i].value[0]);
  }
}

static void emulator_table(FILE *f, const sj_gpu_device *d) {
  fprintf(f, "| stencil | mapping, block | model instr/update | **emulator instr/update** | model "
             "DRAM B/update | **emulator L2-model DRAM B/update** |\n|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof emulated / sizeof *emulated; i++) {
    sj_tm_cost c;
    char what[96];
    if (cost_of(&emulated[i], d, &c)) continue;
    sizes(what, sizeof what, &c);
    /* the arrays of these sizes fit the L2: the model's DRAM bytes are its L2 traffic then */
    fprintf(f, "| %s | %s | %.1f | **%.2f** | %.2f | **%.3f** |\n", emulated[i].name, what,
            c.instr_per_update, emulated[i].value[0], c.bytes_per_update, emulated[i].value[1]);
  }
}

typedef struct choice_case {
  const char *name, *file;
  long ints[4];
  int nints;
} choice_case;

static void choice_table(FILE *f, const sj_gpu_device *d, int staged) {
  static const choice_case cases[] = {
      {"jacobi-1d 2^20, T=512", "jacobi1d_3pt.c", {512, 1 << 20}, 2},
      {"jacobi-2d 1024², T=100", "jacobi2d_5pt.c", {100, 1024, 1024}, 3},
      {"jacobi-2d 4096², T=100", "jacobi2d_5pt.c", {100, 4096, 4096}, 3},
      {"heat-2d 4096², T=100", "heat2d_9pt.c", {100, 4096, 4096}, 3},
      {"fdtd-2d 2048², T=100", "fdtd2d.c", {100, 2048, 2048}, 3},
      {"heat-3d 256³, T=100", "heat3d_27pt.c", {100, 256, 256, 256}, 4},
      {"heat-3d 384³, T=100", "heat3d_27pt.c", {100, 384, 384, 384}, 4},
  };
  fprintf(f, "| stencil | per step ms | best hybrid | ms | best split | ms | the model picks | "
             "CPU ms to read the stencil (cold) + search (median of 5) "
             "|\n|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sj_tm_stencil s;
    double read_ms, t0;
    if (read_stencil(cases[i].file, cases[i].ints, cases[i].nints, &s, &read_ms)) continue;
    sj_tm_cost ps, top[SJ_TM_KINDS][SJ_TM_TOP];
    int n[SJ_TM_KINDS];
    double ms[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
      t0 = now_ms();
      sj_tm_search(&s, SJ_TM_PER_STEP, 0, NULL, d, &ps);
      for (int k = SJ_TM_HYBRID; k < SJ_TM_KINDS; k++)
        n[k] = sj_tm_search(&s, (sj_tm_kind)k, staged, NULL, d, top[k]);
      ms[r] = now_ms() - t0;
    }
    double search_ms = median(ms);
    char what[SJ_TM_KINDS][96];
    const char *pick = "per step";
    double best = fmin(ps.time * SJ_TM_TILED_MARGIN, ps.time - SJ_TM_TILED_SAVING);
    for (int k = SJ_TM_HYBRID; k < SJ_TM_KINDS; k++) {
      if (n[k])
        sizes(what[k], sizeof what[k], &top[k][0]);
      else
        snprintf(what[k], sizeof what[k], "none fits");
      if (n[k] && top[k][0].time < best) best = top[k][0].time, pick = sj_tm_kind_names[k];
    }
    fprintf(f, "| %s | %.3f | %s | %.3f | %s | %.3f | %s | %.2f + %.2f |\n", cases[i].name,
            ps.time * 1e3, what[SJ_TM_HYBRID],
            n[SJ_TM_HYBRID] ? top[SJ_TM_HYBRID][0].time * 1e3 : 0, what[SJ_TM_SPLIT],
            n[SJ_TM_SPLIT] ? top[SJ_TM_SPLIT][0].time * 1e3 : 0, pick, read_ms, search_ms);
  }
}

int main(int argc, char **argv) {
  FILE *f = stdout;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      f = fopen(argv[++i], "w");
      if (!f) {
        perror(argv[i]);
        return 1;
      }
    } else {
      fprintf(stderr, "usage: tile_model_bench [--out FILE]\n");
      return 2;
    }
  }
  sj_gpu_device d;
  sj_gpu_device_h100(&d);
  fprintf(f, "# The GPU tile model against measurements\n\n"
             "Written by `tile_model_bench` (bench/tile_model_bench.c). The model "
             "(sched/tile_model.c) is analytic: every **model** figure below is a prediction, not "
             "a measurement; the **measured** columns are copied from the files named. The device "
             "is an H100 SXM as the driver reports it (132 multiprocessors, 3.35 TB/s, 50 MB L2, "
             "227 KB of shared memory per block with the opt-in, 228 KB per multiprocessor less "
             "1 KB per resident block). Each stencil is read through the compiler's own front end "
             "and model.\n\n"
             "## 1. Model against the H100 (bench/results/gpu-NVIDIA-H100-80GB-HBM3.md)\n\n"
             "T = 100; the sizes and blocks that ran (hybrid and split without shared-memory "
             "staging, in the code of the time: a tile's steps and points in loops, before full "
             "tiles were unrolled; the model costs them so, `rolled`). The model's constants were "
             "calibrated on these rows: it ranks per step, hybrid and split of each stencil as "
             "measured. The code printed now is modeled unrolled: "
             "bench/results/tile-model-emu.md and tiling-choice.md compare that with the "
             "emulator.\n\n");
  h100_table(f, &d);
  fprintf(f, "\n## 2. Model against the emulator's counts (bench/results/tiling.md)\n\n"
             "The code of bench/results/tiling.md's time (rolled, as in section 1). "
             "Instructions per update summed over threads, and DRAM bytes per update: the "
             "emulator's through its L2 model, the model's from the tile's footprint read once "
             "per tile and what it wrote (per step: the planes each step reads and writes).\n\n");
  emulator_table(f, &d);
  for (int staged = 1; staged >= 0; staged--) {
    fprintf(f, "\n## %d. What the model picks, JIT_TILING unset, %s\n\n", 4 - staged,
            staged ? "tiles staged in shared memory (the default: sched/stage.c)"
                   : "tiles in global memory (JIT_STAGE=0)");
    fprintf(f,
            "The best sizes and blocks of each tiling by the search (sched/tile_search.c); a "
            "tiling is picked only when it models at most %.1f of the per-step time and %.0f ms "
            "less.\n\n",
            SJ_TM_TILED_MARGIN, SJ_TM_TILED_SAVING * 1e3);
    double load = -1;
    FILE *l = fopen("/proc/loadavg", "r");
    if (l && fscanf(l, "%lf", &load) != 1) load = -1;
    if (l) fclose(l);
    fprintf(f,
            "The last column is this machine's CPU time (load %.2f): what the model adds to a "
            "compile.\n\n",
            load);
    choice_table(f, &d, staged);
  }
  fprintf(f,
          "\n## Reading these tables\n\n"
          "- Section 1 is the calibration set itself, not an independent check: the model's "
          "constants (sched/tile_model.c) were fitted to these eleven H100 times, under the "
          "constraint that per step < hybrid < split for each stencil as measured.\n"
          "- Section 2 is independent for the instructions: the model's count per update is "
          "built from the statement (loads, stores, operations) and the loop structure, the "
          "emulator's is counted on the PTX. Its DRAM bytes are the staged-box formula (the tile's "
          "footprint in, what it wrote out); the emulator's are through its 50 MB L2 model.\n"
          "- Sections 3 and 4 are predictions. The staged kernels and the unstaged tiles of "
          "other sizes and blocks than were measured are outside the calibration: no GPU has "
          "timed the mappings the model picks for jacobi-2d and heat-2d 4096² and fdtd-2d 2048² "
          "yet; on a GPU, `JIT_TILING=baseline` against `JIT_TILING` unset with "
          "`gpu_timing --sizes2d 4096 -T 100` (bench/gpu) measures it. Staged, an array is in "
          "shared memory only when the box of its tile's footprint fits what is left of the "
          "block's 227 KB (sched/stage.c: dynamic shared memory, the kernel opting in above "
          "48 KB; the model's shared memory is the scheduler's, checked by "
          "tests/sched/tile_model_test.c), and the search puts first the sizes that leave room "
          "for 2 blocks per multiprocessor. No kernel with more than 48 KB of shared memory has "
          "been timed on a GPU yet.\n");
  if (f != stdout) fclose(f);
  return 0;
}
