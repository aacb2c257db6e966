/* The GPU path through the driver layer on the emulator device: injected driver failures
 * give a clean error that names the failed call, leave the caller's arrays untouched and leak
 * no device memory; the driver's JIT log reaches the user; the device choice is explained.
 *
 * usage: device_test choice|fastmath|timing | fail KIND | open init|ctx  (failures: JIT_EMU_FAIL,
 * set here) */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <dlfcn.h>
#include <float.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stenciljit.h"

static const char *source =
    "void jacobi2d(int T, int N, int M, float A[2][N][M]) {\n"
    "  for (int t = 0; t < T; t++)\n"
    "    for (int i = 1; i < N - 1; i++)\n"
    "      for (int j = 1; j < M - 1; j++)\n"
    "        A[(t+1)%2][i][j] = 0.2f * (A[t%2][i][j] + A[t%2][i-1][j] + A[t%2][i+1][j]\n"
    "                                   + A[t%2][i][j-1] + A[t%2][i][j+1]);\n"
    "}\n";

enum { T = 3, N = 40, M = 37 };

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static void fill(float *a, size_t n) {
  for (size_t i = 0; i < n; i++) a[i] = (float)((i * 2654435761u) % 1000) / 997.0f;
}

/* What a failure of a kind does to a run: it fails and the context works again; the same, but
 * the block a failed free was to return stays with the device context until the context goes
 * (nothing else is kept, and later runs add nothing); it fails and poisons the context (a
 * failed launch does on a GPU; so does a failed synchronize, which reports an asynchronous
 * launch failure); or the run goes on without what the call gave (the kernel's own limits,
 * the device time). */
enum effect { FAILS, KEEPS, STICKY, SPARED };

/* The driver calls of a run, by the kind JIT_EMU_FAIL fails them with: every kind of the
 * emulator's list (ptx/emu/api.h) the library calls on the emulator with the on-disk cache
 * off (main turns it off). Not here: link (only for the on-disk cache; cache_test fails it),
 * dtod, memset and stream (never called). */
static const struct {
  const char *kind, *call;
  enum effect effect;
  int calls; /* SPARED: the calls of the kind one run makes, each failed in turn */
} faults[] = {
    {"alloc", "cuMemAlloc_v2", FAILS, 0},
    {"htod", "cuMemcpyHtoD_v2", FAILS, 0},
    {"dtoh", "cuMemcpyDtoH_v2", FAILS, 0},
    {"free", "cuMemFree_v2", KEEPS, 0},
    {"load", "cuModuleLoadDataEx", FAILS, 0},
    {"function", "cuModuleGetFunction", FAILS, 0},
    {"launch", "cuLaunchKernel", STICKY, 0},
    {"sync", "cuCtxSynchronize", STICKY, 0},
    {"ctx", "cuCtxSetCurrent", FAILS, 0}, /* ctx:N > 2: the context made current before a call */
    /* two attributes per launch, a launch per step: without them the device's limits apply */
    {"attr", "cuFuncGetAttribute", SPARED, 2 * T},
    /* two events created, two recorded, one waited for, one time read: no device time */
    {"event", "cuEvent", SPARED, 6},
};

/* Device memory in use on the emulator, in bytes, through cuMemGetInfo_v2 of the emulator
 * the library loaded; the first call (once a context is open) keeps the emulator loaded, so
 * that what a context's teardown frees is seen too. -1 when it cannot be asked. */
static void *emu_lib;
static int (*emu_mem_info)(size_t *free_bytes, size_t *total_bytes);

static int find_emu(struct dl_phdr_info *info, size_t size, void *path) {
  (void)size;
  if (!strstr(info->dlpi_name, "libstenciljit_cudaemu")) return 0;
  snprintf(path, 4096, "%s", info->dlpi_name);
  return 1;
}

static long long device_used(void) {
  if (!emu_mem_info) {
    char path[4096] = "";
    dl_iterate_phdr(find_emu, path);
    emu_lib = *path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
    emu_mem_info = emu_lib ? (int (*)(size_t *, size_t *))dlsym(emu_lib, "cuMemGetInfo_v2") : NULL;
    CHECK(emu_mem_info, "the emulator is not loaded ('%s'): no memory count", path);
    if (!emu_mem_info) return -1;
  }
  size_t free_bytes = 0, total = 0;
  int rc = emu_mem_info(&free_bytes, &total);
  CHECK(rc == 0, "cuMemGetInfo_v2: %d", rc);
  return rc ? -1 : (long long)(total - free_bytes);
}

static void expect_no_leak(long long expected, const char *spec, const char *when) {
  long long used = device_used();
  CHECK(used == expected, "%s: %lld bytes of device memory in use %s, %lld expected", spec, used,
        when, expected);
}

/* A and its result after T steps, computed on the CPU device. */
static float *reference(void) {
  size_t n = 2 * (size_t)N * M;
  float *a = malloc(n * sizeof *a);
  fill(a, n);
  jit_context *cpu = jit_context_create(JIT_DEVICE_CPU);
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
  CHECK(cpu && jit_stencil_run(cpu, source, NULL, args, 4) == 0, "cpu reference");
  jit_context_destroy(cpu);
  return a;
}

/* One run that fails at call `call` of the spec: JIT_ERR_DEVICE naming it with the emulator's
 * own words, A untouched. */
static void expect_failed_run(jit_context *ctx, const char *spec, const char *call) {
  size_t n = 2 * (size_t)N * M;
  float *a = malloc(n * sizeof *a), *before = malloc(n * sizeof *a);
  fill(a, n);
  memcpy(before, a, n * sizeof *a);
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
  int rc = jit_stencil_run(ctx, source, NULL, args, 4);
  const char *msg = jit_context_error(ctx);
  CHECK(rc == JIT_ERR_DEVICE, "%s: expected JIT_ERR_DEVICE, got %d (%s)", spec, rc, msg);
  CHECK(strstr(msg, call), "%s: the message does not name %s: %s", spec, call, msg);
  CHECK(strstr(msg, "injected failure"), "%s: the driver's own text is missing: %s", spec, msg);
  CHECK(!memcmp(a, before, n * sizeof *a), "%s: the caller's array changed after a failed call",
        spec);
  printf("%s: %s\n", spec, msg);
  free(a);
  free(before);
}

/* A run that works and gives the reference's result. */
static int expect_good_run(jit_context *ctx, const float *ref, const char *spec) {
  size_t n = 2 * (size_t)N * M;
  float *a = malloc(n * sizeof *a);
  fill(a, n);
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
  int rc = jit_stencil_run(ctx, source, NULL, args, 4);
  CHECK(rc == 0, "%s: the context is not usable after the failure: %s", spec,
        jit_context_error(ctx));
  CHECK(rc || !memcmp(a, ref, n * sizeof *a), "%s: a later run differs from the CPU", spec);
  free(a);
  return rc;
}

/* JIT_EMU_FAIL=kind:N fails only the N-th call of a kind that a run can do without: each such
 * run still gives the reference's result (without a device time when an event failed, with
 * one once N is past the run's calls) and leaks nothing. */
static void spared_case(size_t k, const float *ref) {
  for (int call = 1; call <= faults[k].calls + 1; call++) {
    char spec[64];
    snprintf(spec, sizeof spec, "%s:%d", faults[k].kind, call);
    setenv("JIT_EMU_FAIL", spec, 1);
    jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
    CHECK(ctx, "%s: emu context: %s", spec, jit_last_error());
    if (!ctx) continue;
    long long baseline = device_used();
    size_t n = 2 * (size_t)N * M;
    float *a = malloc(n * sizeof *a);
    fill(a, n);
    jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
    jit_kernel *kern = NULL;
    int rc = jit_kernel_compile(ctx, source, NULL, args, 4, &kern);
    if (!rc) rc = jit_kernel_run(kern, args, 4);
    CHECK(rc == 0, "%s: a failed %s failed the run: %s", spec, faults[k].call,
          jit_context_error(ctx));
    CHECK(rc || !memcmp(a, ref, n * sizeof *a), "%s: the result differs from the CPU", spec);
    double ms = kern ? jit_kernel_last_device_time(kern) : -1;
    if (!strcmp(faults[k].kind, "event"))
      CHECK(call <= faults[k].calls ? ms < 0 : ms >= 0, "%s: device time %g ms", spec, ms);
    printf("%s: run ok, device time %s\n", spec, ms < 0 ? "not measured" : "measured");
    expect_no_leak(baseline, spec, "after the run");
    jit_kernel_release(kern);
    free(a);
    jit_context_destroy(ctx);
    expect_no_leak(baseline, spec, "after jit_context_destroy");
  }
}

/* JIT_EMU_FAIL=kind:1 (kind:3 for ctx: calls 1 and 2 open the device) fails one call of a
 * run; then the same context works again, or, after a sticky failure, says it is unusable on
 * every call and a new context works. Device memory is back where it was after each step. */
static void failure_case(const char *kind) {
  size_t k = 0;
  while (k < sizeof faults / sizeof *faults && strcmp(faults[k].kind, kind)) k++;
  if (k == sizeof faults / sizeof *faults) {
    CHECK(0, "no failure kind %s", kind);
    return;
  }
  float *ref = reference();
  if (faults[k].effect == SPARED) {
    spared_case(k, ref);
    unsetenv("JIT_EMU_FAIL");
    free(ref);
    return;
  }
  char spec[64];
  snprintf(spec, sizeof spec, "%s:%d", kind, strcmp(kind, "ctx") ? 1 : 3);
  setenv("JIT_EMU_FAIL", spec, 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  CHECK(ctx, "emu context: %s", jit_last_error());
  long long baseline = ctx ? device_used() : -1;
  if (ctx) {
    expect_failed_run(ctx, spec, faults[k].call);
    if (faults[k].effect != STICKY) {
      /* the first free of a run is A's */
      long long kept = faults[k].effect == KEEPS ? 2LL * N * M * (long long)sizeof(float) : 0;
      expect_no_leak(baseline + kept, spec, "after the failed run");
      expect_good_run(ctx, ref, spec);
      expect_no_leak(baseline + kept, spec, "after the next run");
    } else {
      size_t n = 2 * (size_t)N * M;
      float *a = malloc(n * sizeof *a);
      fill(a, n);
      jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
      CHECK(jit_stencil_run(ctx, source, NULL, args, 4) == JIT_ERR_DEVICE, "second run succeeded");
      CHECK(strstr(jit_context_error(ctx), "create a new one"), "no remedy given: %s",
            jit_context_error(ctx));
      free(a);
      /* a poisoned context frees nothing (as on a GPU): its teardown frees it all */
      jit_context_destroy(ctx);
      expect_no_leak(baseline, spec, "once the poisoned context is destroyed");
      /* counters belong to a context: the new one would fail the same call again */
      unsetenv("JIT_EMU_FAIL");
      ctx = jit_context_create(JIT_DEVICE_EMU);
      CHECK(ctx, "a new context fails: %s", jit_last_error());
      if (ctx) expect_good_run(ctx, ref, spec);
      if (ctx) expect_no_leak(baseline, spec, "after a run on a new context");
    }
  }
  jit_context_destroy(ctx);
  if (baseline >= 0) expect_no_leak(baseline, spec, "after jit_context_destroy");
  unsetenv("JIT_EMU_FAIL");
  free(ref);
}

/* Opening the device: init:N fails the N-th of its calls, ctx:N the N-th context call; every
 * one names its call, and a context made afterwards works. */
static void open_case(const char *kind) {
  static const char *const init_calls[] = {
      "cuInit",          "cuDriverGetVersion",  "cuDeviceGetCount",    "cuDeviceGet",
      "cuDeviceGetName", "cuDeviceTotalMem_v2", "cuDeviceGetAttribute"};
  static const char *const ctx_calls[] = {"cuDevicePrimaryCtxRetain", "cuCtxSetCurrent"};
  int init = !strcmp(kind, "init");
  const char *const *calls = init ? init_calls : ctx_calls;
  int ncalls = init ? 7 : 2, seen[7] = {0}, opened = 0;
  for (int n = 1; n <= 40 && !opened; n++) {
    char spec[64];
    snprintf(spec, sizeof spec, "%s:%d", kind, n);
    setenv("JIT_EMU_FAIL", spec, 1);
    jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
    opened = ctx != NULL;
    if (ctx) {
      jit_context_destroy(ctx);
      break;
    }
    const char *msg = jit_last_error();
    int named = 0;
    for (int k = 0; k < ncalls; k++)
      if (strstr(msg, calls[k])) seen[k] = named = 1;
    CHECK(named && strstr(msg, "injected failure"), "%s: %s", spec, msg);
    printf("%s: %s\n", spec, msg);
  }
  for (int k = 0; k < ncalls; k++) CHECK(seen[k], "%s never failed", calls[k]);
  CHECK(opened, "%s: the device never opened", kind);
  unsetenv("JIT_EMU_FAIL");
  float *ref = reference();
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  CHECK(ctx, "emu context after the failures: %s", jit_last_error());
  if (ctx) expect_good_run(ctx, ref, kind);
  jit_context_destroy(ctx);
  free(ref);
}

static void choice_case(void) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  CHECK(ctx && jit_context_device(ctx) == JIT_DEVICE_EMU, "emu context: %s", jit_last_error());
  CHECK(ctx && strstr(jit_context_info(ctx), "emu"), "info: %s", ctx ? jit_context_info(ctx) : "");
  if (ctx) {
    /* the same shape twice compiles once; PTX and host loop are there */
    size_t n = 2 * (size_t)N * M;
    float *a = malloc(n * sizeof *a);
    fill(a, n);
    jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
    CHECK(jit_stencil_run(ctx, source, NULL, args, 4) == 0, "%s", jit_context_error(ctx));
    CHECK(jit_stencil_run(ctx, source, NULL, args, 4) == 0, "%s", jit_context_error(ctx));
    jit_stats st;
    jit_context_stats(ctx, &st);
    CHECK(st.compiles == 1 && st.cache_hits == 1, "compiles %lu, hits %lu", st.compiles,
          st.cache_hits);
    jit_kernel *k;
    CHECK(jit_kernel_compile(ctx, source, NULL, args, 4, &k) == 0, "%s", jit_context_error(ctx));
    CHECK(jit_kernel_code(k, JIT_CODE_PTX) && strstr(jit_kernel_code(k, JIT_CODE_PTX), ".entry"),
          "no PTX entry");
    CHECK(jit_kernel_code(k, JIT_CODE_HOST) &&
              strstr(jit_kernel_code(k, JIT_CODE_HOST), "__sj_launch"),
          "no host loop");
    CHECK(strstr(jit_kernel_schedule(k), "grid") && strstr(jit_kernel_schedule(k), "block"),
          "the schedule does not show the mapping: %s", jit_kernel_schedule(k));
    jit_kernel_release(k);
    free(a);
    jit_context_destroy(ctx);
  }
  /* No libcuda here: CUDA fails with a reason, AUTO falls back to the CPU and says why. */
  setenv("JIT_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  jit_context *cuda = jit_context_create(JIT_DEVICE_CUDA);
  CHECK(!cuda && strstr(jit_last_error(), "/nonexistent/libcuda.so.1"), "cuda: %s",
        jit_last_error());
  jit_context_destroy(cuda);
  unsetenv("JIT_DEVICE");
  jit_context *autoctx = jit_context_create(JIT_DEVICE_AUTO);
  CHECK(autoctx && jit_context_device(autoctx) == JIT_DEVICE_CPU, "auto did not fall back");
  CHECK(autoctx && strstr(jit_context_info(autoctx), "no CUDA device answered"), "info: %s",
        autoctx ? jit_context_info(autoctx) : "");
  if (autoctx) printf("auto: %s\n", jit_context_info(autoctx));
  jit_context_destroy(autoctx);
}

/* Fast math on the GPU path: contraction into fma changes rounding, so results may differ
 * from C; exact mode must not contract. The kernel is a convex combination (weights 0.3,
 * 0.4, 0.3, not powers of two, so products do round) of values in [0, 1): each fma skips
 * one rounding of a product, an error of at most FLT_EPSILON * max|A| per fma, two per
 * point and step, and a convex combination does not amplify earlier errors. So after T steps
 * |fast - exact| <= 2 * T * FLT_EPSILON * max|A|; the test allows twice that. */
static void fast_math_case(void) {
  static const char *smooth =
      "void smooth(int T, int N, float A[2][N]) {\n"
      "  for (int t = 0; t < T; t++)\n"
      "    for (int i = 1; i < N - 1; i++)\n"
      "      A[(t+1)%2][i] = 0.3f * A[t%2][i-1] + 0.4f * A[t%2][i] + 0.3f * A[t%2][i+1];\n"
      "}\n";
  enum { STEPS = 20, LEN = 1000 };
  float *exact = malloc(2 * LEN * sizeof *exact), *fast = malloc(2 * LEN * sizeof *fast);
  fill(exact, 2 * LEN);
  memcpy(fast, exact, 2 * LEN * sizeof *fast);
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU), *fctx = jit_context_create(JIT_DEVICE_EMU);
  CHECK(ctx && fctx, "emu context: %s", jit_last_error());
  if (!ctx || !fctx) return;
  jit_options opts = {0};
  opts.fast_math = 1;
  jit_context_set_options(fctx, &opts);
  jit_arg a[] = {JIT_INT(STEPS), JIT_INT(LEN), JIT_PTR(exact)};
  jit_arg b[] = {JIT_INT(STEPS), JIT_INT(LEN), JIT_PTR(fast)};
  jit_kernel *ke, *kf;
  CHECK(jit_kernel_compile(ctx, smooth, NULL, a, 3, &ke) == 0, "%s", jit_context_error(ctx));
  CHECK(jit_kernel_compile(fctx, smooth, NULL, b, 3, &kf) == 0, "%s", jit_context_error(fctx));
  CHECK(!strstr(jit_kernel_code(ke, JIT_CODE_PTX), "fma"), "exact mode contracted");
  CHECK(strstr(jit_kernel_code(kf, JIT_CODE_PTX), "fma.rn.f32"), "fast math did not contract");
  CHECK(jit_kernel_run(ke, a, 3) == 0, "%s", jit_context_error(ctx));
  CHECK(jit_kernel_run(kf, b, 3) == 0, "%s", jit_context_error(fctx));
  double worst = 0;
  for (int i = 0; i < 2 * LEN; i++) {
    double d = fabs((double)fast[i] - (double)exact[i]);
    if (d > worst) worst = d;
  }
  double bound = 4.0 * STEPS * FLT_EPSILON; /* max|A| < 1 */
  CHECK(worst <= bound, "fast math differs by %g, bound %g", worst, bound);
  CHECK(worst > 0, "fast math gave the exact result: the fma was not fused");
  printf("fast math: largest difference %g (bound %g)\n", worst, bound);
  jit_kernel_release(ke);
  jit_kernel_release(kf);
  jit_context_destroy(ctx);
  jit_context_destroy(fctx);
  free(exact);
  free(fast);
}

/* jit_kernel_last_device_time: nothing before a run, the emulator's events around the host
 * loop after one (launches only: never more than the whole call), nothing on the CPU. */
static void timing_case(void) {
  size_t n = 2 * (size_t)N * M;
  float *a = malloc(n * sizeof *a);
  fill(a, n);
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
  jit_device devices[] = {JIT_DEVICE_EMU, JIT_DEVICE_CPU};
  for (int d = 0; d < 2; d++) {
    jit_context *ctx = jit_context_create(devices[d]);
    jit_kernel *k = NULL;
    CHECK(ctx && jit_kernel_compile(ctx, source, NULL, args, 4, &k) == 0, "compile: %s",
          ctx ? jit_context_error(ctx) : jit_last_error());
    if (!k) {
      jit_context_destroy(ctx);
      continue;
    }
    CHECK(jit_kernel_last_device_time(k) < 0, "a time before any run");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(jit_kernel_run(k, args, 4) == 0, "%s", jit_context_error(ctx));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double call_ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    double ms = jit_kernel_last_device_time(k);
    if (devices[d] == JIT_DEVICE_EMU) {
      CHECK(ms > 0 && ms <= call_ms, "device time %g ms, the whole call %g ms", ms, call_ms);
      printf("timing: emulator wall time of the launches %.3f ms of a %.3f ms call\n", ms, call_ms);
    } else {
      CHECK(ms < 0, "a device time (%g) on the CPU", ms);
    }
    CHECK(jit_kernel_last_device_time(NULL) < 0, "a time without a kernel");
    jit_kernel_release(k);
    jit_context_destroy(ctx);
  }
  free(a);
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: device_test choice|fastmath|timing|open init|ctx|fail KIND\n");
    return 2;
  }
  unsetenv("JIT_EMU_FAIL");
  /* With it on, a module is linked and its image loaded first, and the PTX loaded when that
   * fails: other calls, counted in another order. */
  setenv("JIT_CACHE", "off", 1);
  if (!strcmp(argv[1], "fail") && argc == 3)
    failure_case(argv[2]);
  else if (!strcmp(argv[1], "open") && argc == 3)
    open_case(argv[2]);
  else if (!strcmp(argv[1], "fastmath"))
    fast_math_case();
  else if (!strcmp(argv[1], "timing"))
    timing_case();
  else
    choice_case();
  if (emu_lib) dlclose(emu_lib);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
