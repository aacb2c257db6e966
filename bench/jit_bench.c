/* jit_bench: CPU-side measurements of stenciljit, written as Markdown.
 *
 *   jit_bench [--out FILE.md] [--kernels DIR] [--size N] [--steps T] [--reps R] [--cold R] [--calls
 * C]
 *
 * (a) cold JIT latency, source to runnable, for jacobi-2d: a fresh context per compile,
 *     median over --cold compiles, split by stage (jit_kernel_stage_times);
 * (b) warm cache-hit cost: jit_stencil_run with T=0 on a cached shape, per call, next to
 *     jit_kernel_run of the same (empty) kernel, whose difference is the cache lookup;
 * (c)-(f) the CPU targets: tiers, time tiling and threads against gcc -O3 -march=native
 *     (bench/cpu_targets.c). */
#include <stenciljit.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/file.h"
#include "bench/common.h"
#include "bench/cpu_targets.h"

#ifndef SJ_KERNEL_DIR
#error "SJ_KERNEL_DIR must name tests/kernels (--kernels DIR overrides it at run time)"
#endif

static void fill(float *p, size_t n) {
  uint64_t s = 42;
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (float)(s >> 40) * 0x1p-24f;
  }
}

static void die(const char *what, const jit_context *ctx) {
  fprintf(stderr, "jit_bench: %s: %s\n", what, ctx ? jit_context_error(ctx) : jit_last_error());
  exit(1);
}

static jit_context *cpu_context(int threads) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  if (!ctx) die("jit_context_create", NULL);
  jit_options o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.source_name = "bench";
  jit_context_set_options(ctx, &o);
  return ctx;
}

static const char *verdict(int ok) {
  return ok ? "met" : "**missed**";
}

static void machine_info(char *model, size_t model_len, char *l3, size_t l3_len) {
  snprintf(model, model_len, "unknown");
  snprintf(l3, l3_len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "model name", 10) == 0) {
      char *p = strchr(line, ':');
      if (p) {
        p += 1 + (p[1] == ' ');
        p[strcspn(p, "\n")] = '\0';
        snprintf(model, model_len, "%.200s", p);
      }
      break;
    }
  if (f) fclose(f);
  f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
  if (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    snprintf(l3, l3_len, "%.60s", line);
  }
  if (f) fclose(f);
}

int main(int argc, char **argv) {
  const char *out = NULL, *kernels = SJ_KERNEL_DIR;
  int N = 4096, T = 10, reps = 3, cold = 21, calls = 20000;
  for (int i = 1; i < argc; i++) {
    int *target = NULL;
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
      kernels = argv[++i];
      continue;
    }
    if (strcmp(argv[i], "--size") == 0)
      target = &N;
    else if (strcmp(argv[i], "--steps") == 0)
      target = &T;
    else if (strcmp(argv[i], "--reps") == 0)
      target = &reps;
    else if (strcmp(argv[i], "--cold") == 0)
      target = &cold;
    else if (strcmp(argv[i], "--calls") == 0)
      target = &calls;
    if (!target || i + 1 >= argc || (*target = atoi(argv[i + 1])) < 1) {
      fprintf(stderr,
              "usage: jit_bench [--out FILE.md] [--kernels DIR] [--size N] [--steps T] [--reps R] "
              "[--cold R] [--calls C]\n");
      return 1;
    }
    i++;
  }
  if (N < 3) N = 3;
  char jac_path[1024];
  snprintf(jac_path, sizeof jac_path, "%s/jacobi2d_5pt.c", kernels);
  char *jac_src = sj_read_file(jac_path, NULL);
  if (!jac_src) {
    fprintf(stderr, "jit_bench: cannot read kernels from %s\n", kernels);
    return 1;
  }
  if (out) {
    if (bench_md_open(out)) {
      fprintf(stderr, "jit_bench: cannot write %s\n", out);
      return 1;
    }
  }

  char model[256], l3[64], date[64];
  machine_info(model, sizeof model, l3, sizeof l3);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  bench_md("# stenciljit CPU benchmark\n\n");
  bench_md("| | |\n|---|---|\n");
  bench_md("| date | %s |\n| CPU | %s |\n| nproc | %ld |\n| L3 cache | %s |\n", date, model,
           sysconf(_SC_NPROCESSORS_ONLN), l3);
  bench_md("| stenciljit | %s |\n| reference compiler | gcc %s, -O3 -march=native "
           "-ffp-contract=off |\n\n",
           STENCILJIT_VERSION, __VERSION__);

  /* (a) cold JIT latency */
  jit_stage_times *st = calloc((size_t)cold, sizeof *st);
  double *wall = calloc((size_t)cold, sizeof(double)),
         *create = calloc((size_t)cold, sizeof(double));
  double *col = calloc((size_t)cold, sizeof(double));
  if (!st || !wall || !create || !col) return 1;
  jit_arg shape[] = {JIT_INT(T), JIT_INT(N), JIT_INT(N), JIT_PTR(NULL)};
  for (int r = 0; r < cold; r++) {
    double t0 = bench_now_us();
    jit_context *ctx = cpu_context(0);
    double t1 = bench_now_us();
    jit_kernel *k = NULL;
    if (jit_kernel_compile(ctx, jac_src, NULL, shape, 4, &k) != JIT_OK) die("cold compile", ctx);
    wall[r] = bench_now_us() - t1;
    create[r] = t1 - t0;
    jit_kernel_stage_times(k, &st[r]);
    jit_kernel_release(k);
    jit_context_destroy(ctx);
  }
  bench_md("## (a) Cold JIT latency: jacobi-2d (%dx%d, T=%d), source to runnable\n\n", N, N, T);
  bench_md("Fresh context per compile; median of %d compiles; stage times from "
           "`jit_kernel_stage_times`.\n\n",
           cold);
  bench_md("| stage | median (ms) |\n|---|---:|\n");
  static const char *names[] = {"parse", "model", "dependences", "schedule",
                                "ast",   "print", "compile",     "total (library)"};
  for (int s = 0; s < 8; s++) {
    for (int r = 0; r < cold; r++) {
      const double *f = &st[r].parse;
      col[r] = f[s];
    }
    bench_md("| %s | %.3f |\n", names[s], bench_median(col, cold) / 1e3);
  }
  double cold_ms = bench_median(wall, cold) / 1e3;
  bench_md("| jit_kernel_compile, wall clock | %.3f |\n", cold_ms);
  bench_md("| jit_context_create (not included) | %.3f |\n\n", bench_median(create, cold) / 1e3);
  bench_md("Target: cold JIT < 20 ms: %s.\n\n", verdict(cold_ms < 20.0));

  /* (b) warm cache-hit cost */
  {
    int n = 256;
    jit_context *ctx = cpu_context(0);
    float *a = malloc(sizeof(float) * 2 * (size_t)n * n);
    if (!a) return 1;
    fill(a, 2 * (size_t)n * n);
    jit_arg args[] = {JIT_INT(0), JIT_INT(n), JIT_INT(n), JIT_PTR(a)};
    if (jit_stencil_run(ctx, jac_src, NULL, args, 4) != JIT_OK) die("warm-up", ctx);
    jit_kernel *k = NULL;
    if (jit_kernel_compile(ctx, jac_src, NULL, args, 4, &k) != JIT_OK) die("compile", ctx);
    jit_stats s0, s1;
    jit_context_stats(ctx, &s0);
    double t0 = bench_now_us();
    for (int c = 0; c < calls; c++)
      if (jit_stencil_run(ctx, jac_src, NULL, args, 4) != JIT_OK) die("cached run", ctx);
    double hit = (bench_now_us() - t0) / calls;
    jit_context_stats(ctx, &s1);
    t0 = bench_now_us();
    for (int c = 0; c < calls; c++)
      if (jit_kernel_run(k, args, 4) != JIT_OK) die("kernel run", ctx);
    double direct = (bench_now_us() - t0) / calls;
    jit_kernel_release(k);
    jit_context_destroy(ctx);
    free(a);
    bench_md("## (b) Warm cache hit: jacobi-2d, T=0, %dx%d, %d calls\n\n", n, n, calls);
    bench_md("| call | µs per call |\n|---|---:|\n");
    bench_md("| jit_stencil_run (cache hit) | %.3f |\n", hit);
    bench_md("| jit_kernel_run of the same empty kernel | %.3f |\n", direct);
    bench_md("| difference: cache lookup and call overhead | %.3f |\n\n", hit - direct);
    bench_md("Compiles during the timed calls: %lu (must be 0). Target: cache hit < 5 µs: %s.\n\n",
             s1.compiles - s0.compiles, verdict(hit < 5.0 && s1.compiles == s0.compiles));
  }

  bench_cpu_targets(kernels, reps);
  bench_md_close();
  free(st);
  free(wall);
  free(create);
  free(col);
  free(jac_src);
  return 0;
}
