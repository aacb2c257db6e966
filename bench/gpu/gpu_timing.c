/* Kernel times on the device (issue 13, item 8), not a test: stenciljit against the naive
 * CUDA C of bench/baselines (one thread per point, one launch per time step, compiled by
 * nvcc to PTX), per stencil and size, side by side in GStencils/s (updates per second).
 *
 * Both sides run through the library's driver layer on the device $JIT_DEVICE names (cuda,
 * the default, or emu) and are timed the same way: CUDA events around all the launches of a
 * run, host<->device copies outside. For stenciljit that is jit_kernel_last_device_time (the
 * events around the kernel's host loop). Each run starts from the same data and its result
 * must equal the C function compiled by the system compiler bit for bit (exact mode). On the
 * emulator the events read its wall clock: every time is then labeled emulator wall time.
 *
 * Usage: gpu_timing [--out FILE.md | --out-dir DIR] [--kernels DIR] [--baselines DIR]
 *                   [--sizes2d N,N..] [--sizes3d N,N..] [-T T] [--reps R] [--warmup W]
 *                   [--tilings auto,none,hybrid,split]
 * --out-dir writes DIR/gpu-<device name>.md. --tilings times stenciljit once per $JIT_TILING
 * value named (default: auto alone), each from a context of its own, against the same
 * reference and naive run, so that the mappings compare side by side in one run; each row
 * says what ran, what the tile model predicted for it and how long the cold compile took. Exit: 0
 * all measured and identical, 3 when a case failed or differs (the report is written either way), 1
 * on a usage or harness error. */
#include <stenciljit.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "bench/common.h"
#include "host/cuda.h"

#ifndef SJ_KERNEL_DIR
#define SJ_KERNEL_DIR "tests/kernels"
#endif
#ifndef SJ_BASELINE_DIR
#define SJ_BASELINE_DIR "bench/baselines"
#endif

enum { MAX_SIZES = 8, MAX_REPS = 50, MAX_TILINGS = 6 };

/* The C functions themselves, compiled by the system compiler (-O3 -ffp-contract=off). */
void jacobi2d(int T, int N, int M, float A[2][N][M]);
void heat2d_9pt(int T, int N, int M, float A[2][N][M]);
void heat3d_27pt(int T, int N, int M, int K, float A[2][N][M][K]);
static void ref_jacobi2d(int T, int n, float *A) {
  jacobi2d(T, n, n, (float(*)[n][n])A);
}
static void ref_heat2d(int T, int n, float *A) {
  heat2d_9pt(T, n, n, (float(*)[n][n])A);
}
static void ref_heat3d(int T, int n, float *A) {
  heat3d_27pt(T, n, n, n, (float(*)[n][n][n])A);
}

typedef struct stencil {
  const char *name, *file; /* report name; tests/kernels file: stenciljit's source */
  const char *baseline;    /* bench/baselines/BASELINE.ptx */
  const char *entry;       /* the baseline's kernel */
  int dims;                /* square (2) or cube (3) of side n, double-buffered */
  void (*reference)(int T, int n, float *A);
} stencil;

static const stencil stencils[] = {
    {"jacobi-2d 5pt (blueprint)", "jacobi2d_5pt.c", "jacobi2d_naive", "jacobi2d_step", 2,
     ref_jacobi2d},
    {"heat-2d 9pt", "heat2d_9pt.c", "heat2d_9pt_naive", "heat2d_9pt_step", 2, ref_heat2d},
    {"heat-3d 27pt", "heat3d_27pt.c", "heat3d_27pt_naive", "heat3d_27pt_step", 3, ref_heat3d},
};
enum { NSTENCILS = sizeof stencils / sizeof *stencils };

typedef struct timing {
  int ok;
  char why[400];
  double median_ms, min_ms, call_ms; /* device time; call_ms: jit_kernel_run with copies */
  size_t ndiff;                      /* elements differing from the C function, worst run */
  /* stenciljit only: the mapping that ran, the tile model's time for it (-1: none), and the
   * wall time of jit_kernel_compile (cold: a new context, JIT_CACHE=off for no disk hits) */
  char mapping[200];
  double model_ms, compile_ms;
} timing;

typedef struct config {
  int T, reps, warmup;
  int emu; /* times are the emulator's wall clock */
  const char *kernels, *baselines;
  const char *tilings[MAX_TILINGS]; /* $JIT_TILING values, one stenciljit run each */
  int ntilings;
} config;

static size_t elems(const stencil *s, int n) {
  return 2 * (size_t)n * n * (s->dims == 3 ? (size_t)n : 1);
}

static double updates(const stencil *s, int n, int T) {
  double side = n - 2;
  return (double)T * side * side * (s->dims == 3 ? side : 1);
}

static size_t count_diff(const float *a, const float *b, size_t n) {
  size_t d = 0;
  for (size_t i = 0; i < n; i++) d += memcmp(&a[i], &b[i], sizeof *a) != 0;
  return d;
}

static void summarize(timing *r, double *ms, double *call, int reps) {
  r->median_ms = bench_median(ms, reps);
  r->min_ms = ms[0]; /* bench_median sorted them */
  r->call_ms = call ? bench_median(call, reps) : -1;
  r->ok = 1;
}

/* What ran, read from the schedule's explanation: the first kernel's grid and block with its
 * tiles (or the per-step mapping), and the tile model's time for the candidate that ran. */
static void describe(const char *why, timing *r) {
  r->model_ms = -1;
  snprintf(r->mapping, sizeof r->mapping, "?");
  const char *k = why ? strstr(why, "\n  kernel 0: ") : NULL;
  if (!k) return;
  k += strlen("\n  kernel 0: ");
  int line = (int)strcspn(k, "\n"), head = (int)strcspn(k, ":\n");
  /* "grid G, block B, L launches: phase 0 of hybrid tiles h=5 (12 steps), w0=32 (...)" */
  const char *of = strstr(k, " of hybrid tiles ");
  if (!of || of > k + line) of = strstr(k, " of split tiles ");
  int tiled = of && of < k + line;
  if (tiled)
    snprintf(r->mapping, sizeof r->mapping, "%.*s: %.*s", head, k, (int)strcspn(of + 4, ":\n"),
             of + 4);
  else
    snprintf(r->mapping, sizeof r->mapping, "per step: %.*s", head, k);
  /* The model's candidates ("    per step: ... 7.269 ms", "    hybrid h=5 w=32x128 ..."),
   * best first: the first of the kind that ran is the one that ran. */
  const char *kind = !tiled                            ? "\n    per step: "
                     : strstr(of, " of hybrid ") == of ? "\n    hybrid "
                                                       : "\n    split ";
  const char *c = strstr(why, kind);
  if (!c) return;
  const char *ms = c + 1 + strcspn(c + 1, "\n");
  while (ms > c + 1 && ms[-1] != ',') ms--;
  double v;
  if (sscanf(ms, " %lf ms", &v) == 1) r->model_ms = v;
}

/* stenciljit with $JIT_TILING = tiling, from a context of its own (the variable is read when
 * a context is made): warm-ups, then reps runs of jit_kernel_run, each from init, each
 * checked. */
static void time_jit(const config *c, const char *tiling, const stencil *s, int n,
                     const float *init, const float *ref, float *buf, timing *r) {
  setenv("JIT_TILING", tiling, 1);
  jit_context *ctx = jit_context_create(c->emu ? JIT_DEVICE_EMU : JIT_DEVICE_CUDA);
  if (!ctx) {
    snprintf(r->why, sizeof r->why, "no context: %.380s", jit_last_error());
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", c->kernels, s->file);
  char *src = sj_read_file(path, NULL);
  jit_kernel *k = NULL;
  jit_arg args[] = {JIT_INT(c->T), JIT_INT(n), JIT_INT(n), JIT_INT(n), JIT_PTR(buf)};
  int nargs = s->dims + 2;
  args[nargs - 1] = JIT_PTR(buf);
  jit_options opts = {0};
  opts.source_name = path;
  jit_context_set_options(ctx, &opts);
  if (!src) {
    snprintf(r->why, sizeof r->why, "cannot read %.370s", path);
    jit_context_destroy(ctx);
    return;
  }
  double ms[MAX_REPS], call[MAX_REPS];
  double c0 = bench_now_ms();
  int st = jit_kernel_compile(ctx, src, NULL, args, nargs, &k);
  r->compile_ms = bench_now_ms() - c0;
  if (st == JIT_OK) describe(jit_kernel_schedule(k), r);
  for (int i = 0; st == JIT_OK && i < c->warmup + c->reps; i++) {
    memcpy(buf, init, elems(s, n) * sizeof *buf);
    double t0 = bench_now_ms();
    st = jit_kernel_run(k, args, nargs);
    double t1 = bench_now_ms(), dev = jit_kernel_last_device_time(k);
    if (st != JIT_OK) break;
    size_t d = count_diff(buf, ref, elems(s, n));
    if (d > r->ndiff) r->ndiff = d;
    if (dev < 0) {
      snprintf(r->why, sizeof r->why, "no device time (the driver has no events)");
      goto out;
    }
    if (i >= c->warmup) ms[i - c->warmup] = dev, call[i - c->warmup] = t1 - t0;
  }
  if (st != JIT_OK)
    snprintf(r->why, sizeof r->why, "status %d: %.380s", st, jit_context_error(ctx));
  else
    summarize(r, ms, call, c->reps);
out:
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  free(src);
}

/* nvcc only knows its own PTX ISA; a driver older than the toolkit refuses it. The baselines
 * need no newer ISA than sm_80's 7.0, so a newer .version is lowered to the driver's, as
 * stenciljit does for its own PTX. Returns the text to load (ptx or a new string). */
static char *fit_version(char *ptx, const sj_cuda_props *p, char *note, size_t cap) {
  char *v = strstr(ptx, ".version ");
  int fmaj, fmin, dmaj, dmin;
  if (!v || sscanf(v, ".version %d.%d", &fmaj, &fmin) != 2 ||
      sscanf(p->ptx_version, "%d.%d", &dmaj, &dmin) != 2 || fmaj * 10 + fmin <= dmaj * 10 + dmin)
    return ptx;
  size_t head = (size_t)(v - ptx), tail = strcspn(v, "\n");
  char *out = malloc(strlen(ptx) + 32);
  if (!out) return ptx;
  sprintf(out, "%.*s.version %s%s", (int)head, ptx, p->ptx_version, v + tail);
  snprintf(note, cap, "PTX .version %d.%d lowered to %s, the newest this driver accepts", fmaj,
           fmin, p->ptx_version);
  free(ptx);
  return out;
}

/* The naive kernel: T launches per run between two events, the array copied in before and
 * out after, outside the events. */
static void time_naive(sj_cuda *cu, const config *c, const stencil *s, int n, const float *init,
                       const float *ref, float *buf, char *note, size_t cap, timing *r) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.ptx", c->baselines, s->baseline);
  char *ptx = sj_read_file(path, NULL);
  sj_error err = {0, {0}};
  sj_cuda_module *m = NULL;
  sj_devptr d = 0;
  size_t bytes = elems(s, n) * sizeof *buf;
  if (!ptx) {
    snprintf(r->why, sizeof r->why, "cannot read %.370s", path);
    return;
  }
  ptx = fit_version(ptx, sj_cuda_get_props(cu), note, cap);
  void *fn = NULL;
  if (!sj_cuda_load(cu, ptx, &m, &err)) fn = sj_cuda_function(cu, m, s->entry, &err);
  int rc = fn ? sj_cuda_alloc(cu, bytes, &d, &err) : JIT_ERR_DEVICE;
  unsigned grid[3] = {(unsigned)(n + 31) / 32, (unsigned)(n + 7) / 8, s->dims == 3 ? n : 1};
  unsigned block[3] = {32, 8, 1};
  int t = 0;
  void *params2[] = {&t, &n, &n, &d}, *params3[] = {&t, &n, &n, &n, &d};
  double ms[MAX_REPS];
  for (int i = 0; !rc && i < c->warmup + c->reps; i++) {
    sj_cuda_timer timer = {NULL, NULL};
    float dev = -1;
    rc = sj_cuda_to_device(cu, d, init, bytes, &err);
    if (!rc) rc = sj_cuda_timer_start(cu, &timer, &err);
    for (t = 0; !rc && t < c->T; t++)
      rc = sj_cuda_launch(cu, fn, grid, block, 0, s->dims == 3 ? params3 : params2, &err);
    if (!rc) rc = sj_cuda_timer_stop(cu, &timer, &dev, &err);
    sj_cuda_timer_free(cu, &timer);
    if (!rc) rc = sj_cuda_to_host(cu, buf, d, bytes, &err);
    if (rc) break;
    size_t diff = count_diff(buf, ref, elems(s, n));
    if (diff > r->ndiff) r->ndiff = diff;
    if (i >= c->warmup) ms[i - c->warmup] = dev;
  }
  if (rc)
    snprintf(r->why, sizeof r->why, "%.390s", err.msg);
  else
    summarize(r, ms, NULL, c->reps);
  sj_error ferr = {0, {0}};
  sj_cuda_free(cu, d, &ferr);
  sj_cuda_unload(cu, m);
  free(ptx);
}

/* ---------------------------------------------------------------- report */

typedef struct row {
  const stencil *s;
  int n;
  timing jit[MAX_TILINGS], naive; /* jit[i]: c->tilings[i] */
  char note[160];
} row;

static void gstencils(char *buf, size_t cap, const timing *t, double upd) {
  if (t->ok && t->median_ms > 0)
    snprintf(buf, cap, "%.3g", upd / (t->median_ms * 1e6));
  else
    snprintf(buf, cap, "n/a");
}

static void ms_cell(char *buf, size_t cap, const timing *t) {
  if (t->ok)
    snprintf(buf, cap, "%.3f (min %.3f)", t->median_ms, t->min_ms);
  else
    snprintf(buf, cap, "not measured");
}

static const char *verdict(const timing *t) {
  return !t->ok && !t->ndiff ? "-" : t->ndiff ? "**DIFFERS**" : "bit-identical";
}

static void report(FILE *out, const config *c, const sj_cuda_props *p, const char *info,
                   const row *rows, int nrows) {
  const char *what = c->emu ? "emulator wall time" : "GPU time (CUDA events)";
  fprintf(out, "# Kernel times on %s%s\n\n", p->name, c->emu ? " (the PTX emulator, no GPU)" : "");
  fprintf(out,
          "Written by `gpu_timing` (`bundle/run-gpu-checks.sh`). stenciljit and the naive CUDA C "
          "baseline (one thread per point, one launch per step, `nvcc -O3 -arch=sm_80 -ptx "
          "--fmad=false`, `bench/baselines/`) run through the same driver layer; each time is "
          "the device time from CUDA events recorded around all the launches of one run "
          "(T steps), host<->device copies excluded; median of %d runs after %d warm-up "
          "run(s), every run from the same data and checked against the C function compiled "
          "by the system compiler.%s\n\n",
          c->reps, c->warmup,
          c->emu ? " **On this device the events read the emulator's wall clock: every time "
                   "below is emulator wall time on the CPU, not a GPU time.**"
                 : "");
  bench_machine_lines(out);
  fprintf(out,
          "- device: %s, sm_%d%d, %d multiprocessors, %.1f GiB, driver API %d.%d, PTX ISA "
          "%s\n",
          p->name, p->cc_major, p->cc_minor, p->multiprocessors,
          (double)p->total_mem / (1024.0 * 1024 * 1024), p->driver_version / 1000,
          p->driver_version % 1000 / 10, p->ptx_version);
  fprintf(out, "- stenciljit %s: %s\n", STENCILJIT_VERSION, info);
  fprintf(out, "- naive kernels' PTX from `%s`\n", c->baselines);
  fprintf(out,
          "- T = %d steps; GStencils/s = T * interior points / median time; JIT_TILING: what "
          "the library was asked for (auto: its own choice); what ran: the first kernel's grid "
          "and block and its tiles; tile model ms: the library's prediction for that mapping "
          "(sched/tile_model.c, a model); cold compile: jit_kernel_compile from a new context "
          "with no disk cache, on this machine's CPU\n\n",
          c->T);
  fprintf(out,
          "| stencil | size | JIT_TILING | what ran | tile model ms | ms (%s) | GStencils/s "
          "| speed-up over naive | cold compile ms | jit_kernel_run wall ms (with copies) "
          "| result |\n",
          what);
  fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < nrows; i++) {
    const row *w = &rows[i];
    double upd = updates(w->s, w->n, c->T);
    char size[64], a[64], ga[32];
    snprintf(size, sizeof size, "%d^%d", w->n, w->s->dims);
    for (int t = 0; t <= c->ntilings; t++) {
      const timing *r = t < c->ntilings ? &w->jit[t] : &w->naive;
      char ratio[32] = "n/a", call[32] = "-", model[32] = "-", compile[32] = "-";
      ms_cell(a, sizeof a, r);
      gstencils(ga, sizeof ga, r, upd);
      if (r->ok && w->naive.ok && r->median_ms > 0)
        snprintf(ratio, sizeof ratio, "%.2fx", w->naive.median_ms / r->median_ms);
      if (t == c->ntilings) {
        fprintf(out,
                "| %s | %s | naive CUDA | one launch per step, block 32x8x1 | - | %s | %s "
                "| %s | - | - | %s |\n",
                w->s->name, size, a, ga, ratio, verdict(r));
        continue;
      }
      if (r->ok) snprintf(call, sizeof call, "%.3f", r->call_ms);
      if (r->model_ms >= 0) snprintf(model, sizeof model, "%.3f", r->model_ms);
      if (r->compile_ms > 0) snprintf(compile, sizeof compile, "%.0f", r->compile_ms);
      fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w->s->name, size,
              c->tilings[t], r->mapping[0] ? r->mapping : "-", model, a, ga, ratio, compile, call,
              verdict(r));
    }
  }
  fprintf(out, "\n");
  for (int i = 0; i < nrows; i++) {
    const row *w = &rows[i];
    for (int t = 0; t < c->ntilings; t++) {
      const timing *r = &w->jit[t];
      if (!r->ok)
        fprintf(out, "- %s %d, JIT_TILING=%s: stenciljit not measured: %s\n", w->s->name, w->n,
                c->tilings[t], r->why);
      if (r->ndiff)
        fprintf(out, "- %s %d, JIT_TILING=%s: %zu elements differ from the C function\n",
                w->s->name, w->n, c->tilings[t], r->ndiff);
    }
    if (!w->naive.ok)
      fprintf(out, "- %s %d: naive not measured: %s\n", w->s->name, w->n, w->naive.why);
    if (w->naive.ndiff)
      fprintf(out, "- %s %d: naive: %zu elements differ from the C function\n", w->s->name, w->n,
              w->naive.ndiff);
    if (w->note[0] && (i == 0 || strcmp(w->note, rows[i - 1].note)))
      fprintf(out, "- %s: %s\n", w->s->baseline, w->note);
  }
}

static int write_report(const char *path, const config *c, const sj_cuda_props *p, const char *info,
                        const row *rows, int nrows) {
  FILE *out = fopen(path, "w");
  if (!out) {
    perror(path);
    return -1;
  }
  report(out, c, p, info, rows, nrows);
  return fclose(out) ? -1 : 0;
}

/* The device's name as a file name: letters, digits, '.', '_' and '-' kept, runs of anything
 * else one '-'. */
static void file_name(char *out, size_t cap, const char *name) {
  size_t n = 0;
  for (const char *p = name; *p && n + 1 < cap; p++) {
    int keep = isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-';
    if (keep)
      out[n++] = *p;
    else if (n && out[n - 1] != '-')
      out[n++] = '-';
  }
  while (n && out[n - 1] == '-') n--;
  out[n] = 0;
  if (!n) snprintf(out, cap, "unknown");
}

/* ---------------------------------------------------------------- main */

static int parse_sizes(const char *v, int *sizes, int *count) {
  *count = 0;
  for (const char *p = v; *p && *count < MAX_SIZES; p += *p == ',') {
    char *end;
    long n = strtol(p, &end, 10);
    if (end == p || n < 3 || n > 1 << 15) return -1;
    sizes[(*count)++] = (int)n;
    p = end;
  }
  return *count ? 0 : -1;
}

/* "auto,none,hybrid,split" into c->tilings (pointers into *copy, which the caller frees). */
static int parse_tilings(const char *v, char **copy, config *c) {
  free(*copy);
  *copy = strdup(v);
  c->ntilings = 0;
  for (char *save = NULL, *t = strtok_r(*copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (c->ntilings == MAX_TILINGS) return -1;
    c->tilings[c->ntilings++] = t;
  }
  return c->ntilings ? 0 : -1;
}

static int usage(void) {
  fprintf(stderr, "usage: gpu_timing [--out FILE.md | --out-dir DIR] [--kernels DIR] "
                  "[--baselines DIR] [--sizes2d N,N..] [--sizes3d N,..] [-T T] [--reps R] "
                  "[--warmup W] [--tilings auto,none,hybrid,split]   (device: "
                  "JIT_DEVICE=cuda|emu)\n");
  return 1;
}

int main(int argc, char **argv) {
  config c = {100, 5, 2, 0, SJ_KERNEL_DIR, SJ_BASELINE_DIR, {"auto"}, 1};
  char *tilings = NULL;
  const char *out_path = NULL, *out_dir = NULL;
  int s2[MAX_SIZES] = {1024, 4096}, s3[MAX_SIZES] = {256}, n2 = 2, n3 = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[++i] : NULL;
    int bad = !v;
    if (bad)
      ;
    else if (!strcmp(a, "--out"))
      out_path = v;
    else if (!strcmp(a, "--out-dir"))
      out_dir = v;
    else if (!strcmp(a, "--kernels"))
      c.kernels = v;
    else if (!strcmp(a, "--baselines"))
      c.baselines = v;
    else if (!strcmp(a, "--sizes2d"))
      bad = parse_sizes(v, s2, &n2);
    else if (!strcmp(a, "--sizes3d"))
      bad = parse_sizes(v, s3, &n3);
    else if (!strcmp(a, "-T"))
      bad = (c.T = atoi(v)) < 1;
    else if (!strcmp(a, "--reps"))
      bad = (c.reps = atoi(v)) < 1 || c.reps > MAX_REPS;
    else if (!strcmp(a, "--warmup"))
      bad = (c.warmup = atoi(v)) < 0 || c.warmup > MAX_REPS;
    else if (!strcmp(a, "--tilings"))
      bad = parse_tilings(v, &tilings, &c);
    else
      bad = 1;
    if (bad) {
      free(tilings);
      return usage();
    }
  }
  const char *dev = getenv("JIT_DEVICE");
  c.emu = dev && !strcmp(dev, "emu");
  if (dev && *dev && !c.emu && strcmp(dev, "cuda")) {
    fprintf(stderr, "gpu_timing: JIT_DEVICE must be cuda or emu, not %s\n", dev);
    return 1;
  }
  jit_context *ctx = jit_context_create(c.emu ? JIT_DEVICE_EMU : JIT_DEVICE_CUDA);
  sj_cuda *cu = NULL;
  sj_error err = {0, {0}};
  if (!ctx || sj_cuda_open(c.emu ? sj_cuda_emulator_path() : NULL, &cu, &err)) {
    fprintf(stderr, "gpu_timing: no %s device: %s\n", c.emu ? "emu" : "cuda",
            ctx ? err.msg : jit_last_error());
    jit_context_destroy(ctx);
    return 1;
  }
  const sj_cuda_props *props = sj_cuda_get_props(cu);
  /* JIT_CUDA_LIBRARY may name the emulator: its times are never GPU times. */
  c.emu |= strstr(props->name, "emulator") != NULL;
  printf("device: %s (%s)\n", props->name, jit_context_info(ctx));

  char path[1200];
  if (out_dir) {
    char name[200];
    file_name(name, sizeof name, props->name);
    snprintf(path, sizeof path, "%s/gpu-%s.md", out_dir, name);
    out_path = path;
  }
  row rows[NSTENCILS * MAX_SIZES];
  int nrows = 0, all_ok = 1, unwritten = 0;
  for (int si = 0; si < NSTENCILS; si++) {
    const stencil *s = &stencils[si];
    for (int z = 0; z < (s->dims == 3 ? n3 : n2); z++) {
      row *w = &rows[nrows++];
      memset(w, 0, sizeof *w);
      w->s = s;
      w->n = s->dims == 3 ? s3[z] : s2[z];
      size_t n = elems(s, w->n);
      float *init = malloc(n * sizeof(float)), *ref = malloc(n * sizeof(float)),
            *buf = malloc(n * sizeof(float));
      if (!init || !ref || !buf) {
        for (int t = 0; t < c.ntilings; t++)
          snprintf(w->jit[t].why, sizeof w->jit[t].why, "out of host memory");
        snprintf(w->naive.why, sizeof w->naive.why, "out of host memory");
      } else {
        bench_fill(init, n);
        memcpy(ref, init, n * sizeof(float));
        s->reference(c.T, w->n, ref);
        time_naive(cu, &c, s, w->n, init, ref, buf, w->note, sizeof w->note, &w->naive);
        for (int t = 0; t < c.ntilings; t++) {
          const timing *r = &w->jit[t];
          time_jit(&c, c.tilings[t], s, w->n, init, ref, buf, &w->jit[t]);
          printf("%s %d^%d, JIT_TILING=%s: %s, %.3f ms (%s), naive %.3f ms%s\n", s->name, w->n,
                 s->dims, c.tilings[t], r->mapping, r->ok ? r->median_ms : -1,
                 c.emu ? "emulator wall time" : "GPU time", w->naive.ok ? w->naive.median_ms : -1,
                 r->ndiff ? ": RESULT DIFFERS" : "");
          fflush(stdout);
        }
      }
      free(init), free(ref), free(buf);
      all_ok &= w->naive.ok && !w->naive.ndiff;
      for (int t = 0; t < c.ntilings; t++) all_ok &= w->jit[t].ok && !w->jit[t].ndiff;
      /* Rewritten after every row: a run cut short still leaves what it measured. */
      if (out_path && write_report(out_path, &c, props, jit_context_info(ctx), rows, nrows))
        unwritten = 1;
    }
  }
  if (out_path && !unwritten) printf("results written to %s\n", out_path);

  if (!out_path) report(stdout, &c, props, jit_context_info(ctx), rows, nrows);
  sj_cuda_close(cu);
  jit_context_destroy(ctx);
  free(tilings);
  return unwritten ? 1 : all_ok ? 0 : 3;
}
