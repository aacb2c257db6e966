/* The GPU path through the driver layer on the emulator device: injected driver failures
 * give a clean error that names the failed call and leave the caller's arrays untouched;
 * the driver's JIT log reaches the user; the device choice is explained.
 *
 * usage: device_test alloc|load|launch|choice   (the failure cases run with JIT_EMU_FAIL) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A failed call names the driver call and leaves A as it was. */
static void failure_case(const char *call) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  CHECK(ctx, "emu context: %s", jit_last_error());
  if (!ctx) return;
  size_t n = 2 * (size_t)N * M;
  float *a = malloc(n * sizeof *a), *before = malloc(n * sizeof *a);
  fill(a, n);
  memcpy(before, a, n * sizeof *a);
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(a)};
  int rc = jit_stencil_run(ctx, source, NULL, args, 4);
  const char *msg = jit_context_error(ctx);
  CHECK(rc == JIT_ERR_DEVICE, "expected JIT_ERR_DEVICE, got %d (%s)", rc, msg);
  CHECK(strstr(msg, call), "the message does not name %s: %s", call, msg);
  /* the driver's JIT log (load) and the launch's own report reach the user */
  if (strcmp(call, "cuMemAlloc"))
    CHECK(strstr(msg, "injected"), "the driver's own text is missing: %s", msg);
  CHECK(!memcmp(a, before, n * sizeof *a), "the caller's array changed after a failed call");
  printf("%s failure reported as: %s\n", call, msg);
  free(a);
  free(before);
  jit_context_destroy(ctx);
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

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: device_test alloc|load|launch|choice\n");
    return 2;
  }
  if (!strcmp(argv[1], "alloc"))
    failure_case("cuMemAlloc");
  else if (!strcmp(argv[1], "load"))
    failure_case("cuModuleLoadDataEx");
  else if (!strcmp(argv[1], "launch"))
    failure_case("cuLaunchKernel");
  else
    choice_case();
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
