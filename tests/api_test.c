/* api_test: the public API on the CPU device, one case per invocation.
 *
 *   api_test error FILE.c     a tests/errors file is refused with its status and position
 *   api_test CASE             one of the cases in the table at the end
 *
 * Kernels used here are written once, through the KERNEL macro, as C compiled by gcc (the
 * reference) and as the source string handed to the library. */
#include <stenciljit.h>

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/file.h"
#include "test_common.h"

KERNEL(
    scaled, void scaled(int T, int n, float alpha, float vec[2][n]) {
      for (int t = 0; t < T; t++)
        for (int i = 1; i < n - 1; i++)
          vec[(t + 1) % 2][i] = alpha * vec[t % 2][i] + (1.0f - alpha) * vec[t % 2][i - 1];
    })

KERNEL(
    twice, void twice(int n, const float src[n], float dst[n]) {
      for (int i = 0; i < n; i++) dst[i] = 2.0f * src[i];
    })

/* Reads one element past its declared extent for every n: refused for the given sizes. */
static const char oob_src[] = "void shift(int n, float vec[n]) {\n"
                              "  for (int i = 0; i < n; i++)\n"
                              "    vec[i] = vec[i + 1];\n"
                              "}\n";

static void fill_pattern(void *p, size_t bytes, unsigned seed) {
  unsigned char *b = p;
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < bytes; i++) {
    s = s * 1664525u + 1013904223u;
    b[i] = (unsigned char)(s >> 24);
  }
}

static void fill_floats(float *p, size_t n, unsigned seed) {
  uint32_t s = seed * 2654435761u + 7;
  for (size_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    p[i] = (float)(s >> 8) * 0x1p-23f - 1.0f;
  }
}

static jit_context *cpu_context(void) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  if (!ctx) {
    fprintf(stderr, "jit_context_create(CPU) failed: %s\n", jit_last_error());
    exit(1);
  }
  return ctx;
}

/* ---- tests/errors files: refused with the right status and position, arrays untouched ---- */
static int case_error(const char *path) {
  char *src = sj_read_file(path, NULL);
  if (!src) {
    fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  int line = 0, col = 0, n = 0;
  char fragment[256] = "", status[32] = "";
  const char *l2 = strchr(src, '\n');
  if (sscanf(src, "// error: %d:%d: %n", &line, &col, &n) != 2 || n == 0 || !l2 ||
      sscanf(l2 + 1, "// status: %31s", status) != 1) {
    fprintf(stderr,
            "%s: first lines must be `// error: LINE:COL: fragment` and "
            "`// status: syntax|unsupported|args`\n",
            path);
    free(src);
    return 1;
  }
  size_t flen = (size_t)(l2 - (src + n));
  if (flen >= sizeof fragment) flen = sizeof fragment - 1;
  memcpy(fragment, src + n, flen);
  fragment[flen] = '\0';
  while (flen && (fragment[flen - 1] == '\r' || fragment[flen - 1] == ' ')) fragment[--flen] = 0;
  int want = strcmp(status, "syntax") == 0        ? JIT_ERR_SYNTAX
             : strcmp(status, "unsupported") == 0 ? JIT_ERR_UNSUPPORTED
             : strcmp(status, "args") == 0        ? JIT_ERR_ARGS
                                                  : -1;
  CHECK(want > 0, "%s: unknown status %s", path, status);
  const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

  jit_context *ctx = cpu_context();
  jit_options opts;
  memset(&opts, 0, sizeof opts);
  opts.source_name = base;
  jit_context_set_options(ctx, &opts);

  /* Arguments from the parameter list when it parses, else a dummy (int, array) pair. */
  jit_param_info params[32];
  int np = 0;
  jit_arg args[32];
  void *bufs[32] = {0}, *copies[32] = {0};
  size_t sizes[32] = {0};
  if (jit_function_params(ctx, src, NULL, params, 32, &np) != JIT_OK || np <= 0) {
    np = 2;
    args[0] = JIT_INT(5);
    sizes[1] = 4096;
    bufs[1] = malloc(sizes[1]);
    args[1] = JIT_PTR(bufs[1]);
  } else {
    for (int i = 0; i < np; i++) {
      switch (params[i].kind) {
      case JIT_ARG_INT:
        args[i] = JIT_INT(5);
        break;
      case JIT_ARG_LONG:
        args[i] = JIT_LONG(5);
        break;
      case JIT_ARG_FLOAT:
        args[i] = JIT_FLOAT(0.5f);
        break;
      case JIT_ARG_DOUBLE:
        args[i] = JIT_DOUBLE(0.5);
        break;
      case JIT_ARG_PTR: {
        /* Generous: every extent of these small files is below 24 for integer arguments 5. */
        size_t elems = 1;
        for (int r = 0; r < params[i].rank && r < 6; r++) elems *= 24;
        sizes[i] = elems * 8;
        bufs[i] = malloc(sizes[i]);
        args[i] = JIT_PTR(bufs[i]);
        break;
      }
      }
    }
  }
  for (int i = 0; i < np; i++)
    if (bufs[i]) {
      fill_pattern(bufs[i], sizes[i], (unsigned)i + 1);
      copies[i] = malloc(sizes[i]);
      memcpy(copies[i], bufs[i], sizes[i]);
    }

  int st = jit_stencil_run(ctx, src, NULL, args, np);
  const char *msg = jit_context_error(ctx);
  char pos[64], named[320];
  snprintf(pos, sizeof pos, "%d:%d:", line, col);
  snprintf(named, sizeof named, "%s:%d:%d:", base, line, col);
  CHECK(st == want, "%s: status %d, expected %d (%s); message: %s", base, st, want, status,
        msg ? msg : "(null)");
  CHECK(msg && strstr(msg, pos), "%s: message lacks position %s: %s", base, pos,
        msg ? msg : "(null)");
  CHECK(msg && strstr(msg, named), "%s: message does not start from source_name %s: %s", base,
        named, msg ? msg : "(null)");
  CHECK(msg && strstr(msg, fragment), "%s: message lacks \"%s\": %s", base, fragment,
        msg ? msg : "(null)");
  for (int i = 0; i < np; i++)
    if (bufs[i]) {
      CHECK(memcmp(bufs[i], copies[i], sizes[i]) == 0, "%s: argument %d modified by a failed call",
            base, i);
      free(bufs[i]);
      free(copies[i]);
    }
  if (!g_fail) printf("%s: status %d, message: %s\n", base, st, msg);
  jit_context_destroy(ctx);
  free(src);
  return g_fail;
}

/* ---- call validation: JIT_ERR_ARGS, clear message, arrays untouched ---- */
enum { ROWS = 12, COLS = 10, STEPS = 3 };

static void expect_args_error(jit_context *ctx, const char *src, const jit_arg *args, int nargs,
                              void *const *arrays, const size_t *bytes, int narrays,
                              const char *mention) {
  void *copies[4];
  for (int i = 0; i < narrays; i++) {
    copies[i] = malloc(bytes[i]);
    memcpy(copies[i], arrays[i], bytes[i]);
  }
  int st = jit_stencil_run(ctx, src, NULL, args, nargs);
  const char *msg = jit_context_error(ctx);
  CHECK(st == JIT_ERR_ARGS, "status %d, expected JIT_ERR_ARGS; message: %s", st,
        msg ? msg : "(null)");
  CHECK(msg && *msg, "empty error message");
  if (mention) CHECK(msg && strstr(msg, mention), "message should name `%s`: %s", mention, msg);
  for (int i = 0; i < narrays; i++) {
    CHECK(memcmp(copies[i], arrays[i], bytes[i]) == 0, "array %d modified by a failed call", i);
    free(copies[i]);
  }
  printf("refused (%d): %s\n", st, msg ? msg : "(null)");
}

static float *new_grid(int rows, int cols, size_t *bytes) {
  *bytes = sizeof(float) * 2 * (size_t)rows * (size_t)cols;
  float *g = malloc(*bytes);
  fill_floats(g, *bytes / sizeof(float), 3);
  return g;
}

static int case_args_count(void) {
  jit_context *ctx = cpu_context();
  size_t bytes;
  float *g = new_grid(ROWS, COLS, &bytes);
  void *arr[] = {g};
  jit_arg few[] = {JIT_INT(STEPS), JIT_INT(ROWS), JIT_INT(COLS)};
  expect_args_error(ctx, jac_src, few, 3, arr, &bytes, 1, "4");
  jit_arg many[] = {JIT_INT(STEPS), JIT_INT(ROWS), JIT_INT(COLS), JIT_PTR(g), JIT_INT(1)};
  expect_args_error(ctx, jac_src, many, 5, arr, &bytes, 1, "4");
  expect_args_error(ctx, jac_src, NULL, 0, arr, &bytes, 1, NULL);
  free(g);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_args_kind(void) {
  jit_context *ctx = cpu_context();
  size_t bytes;
  float *g = new_grid(ROWS, COLS, &bytes);
  void *arr[] = {g};
  jit_arg a1[] = {JIT_INT(STEPS), JIT_FLOAT((float)ROWS), JIT_INT(COLS), JIT_PTR(g)};
  expect_args_error(ctx, jac_src, a1, 4, arr, &bytes, 1, "rows");
  jit_arg a2[] = {JIT_INT(STEPS), JIT_INT(ROWS), JIT_INT(COLS), JIT_INT(7)};
  expect_args_error(ctx, jac_src, a2, 4, arr, &bytes, 1, "grid");
  jit_arg a3[] = {JIT_INT(STEPS), JIT_INT(ROWS), JIT_DOUBLE(0.5), JIT_PTR(g)};
  expect_args_error(ctx, jac_src, a3, 4, arr, &bytes, 1, "cols");
  free(g);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_args_null(void) {
  jit_context *ctx = cpu_context();
  size_t bytes;
  float *g = new_grid(ROWS, COLS, &bytes);
  void *arr[] = {g};
  jit_arg a[] = {JIT_INT(STEPS), JIT_INT(ROWS), JIT_INT(COLS), JIT_PTR(NULL)};
  expect_args_error(ctx, jac_src, a, 4, arr, &bytes, 1, "grid");
  free(g);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_args_negative(void) {
  jit_context *ctx = cpu_context();
  size_t bytes;
  float *g = new_grid(ROWS, COLS, &bytes);
  void *arr[] = {g};
  jit_arg a[] = {JIT_INT(STEPS), JIT_INT(-1), JIT_INT(COLS), JIT_PTR(g)};
  expect_args_error(ctx, jac_src, a, 4, arr, &bytes, 1, "grid");
  jit_arg b[] = {JIT_INT(-1), JIT_PTR(g), JIT_PTR(g + 64)};
  expect_args_error(ctx, twice_src, b, 3, arr, &bytes, 1, NULL);
  free(g);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_args_overflow(void) {
  jit_context *ctx = cpu_context();
  size_t bytes;
  float *g = new_grid(ROWS, COLS, &bytes);
  void *arr[] = {g};
  /* 2 * (2^31-1)^2 floats: the element count and the byte size overflow. */
  jit_arg a[] = {JIT_INT(1), JIT_INT(INT_MAX), JIT_INT(INT_MAX), JIT_PTR(g)};
  expect_args_error(ctx, jac_src, a, 4, arr, &bytes, 1, "grid");
  free(g);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_args_overlap(void) {
  jit_context *ctx = cpu_context();
  enum { N = 64 };
  size_t bytes = sizeof(float) * (2 * N + 1);
  float *buf = malloc(bytes);
  fill_floats(buf, 2 * N + 1, 5);
  void *arr[] = {buf};
  jit_arg same[] = {JIT_INT(N), JIT_PTR(buf), JIT_PTR(buf)};
  expect_args_error(ctx, twice_src, same, 3, arr, &bytes, 1, NULL);
  jit_arg shifted[] = {JIT_INT(N), JIT_PTR(buf), JIT_PTR(buf + 1)};
  expect_args_error(ctx, twice_src, shifted, 3, arr, &bytes, 1, NULL);
  jit_arg back[] = {JIT_INT(N), JIT_PTR(buf + N - 1), JIT_PTR(buf)};
  expect_args_error(ctx, twice_src, back, 3, arr, &bytes, 1, NULL);
  /* Adjacent but disjoint is fine and gives the C result. */
  float *want = malloc(bytes);
  memcpy(want, buf, bytes);
  twice(N, want, want + N);
  jit_arg adjacent[] = {JIT_INT(N), JIT_PTR(buf), JIT_PTR(buf + N)};
  int st = jit_stencil_run(ctx, twice_src, NULL, adjacent, 3);
  CHECK(st == JIT_OK, "adjacent arrays refused: %s", jit_context_error(ctx));
  CHECK(memcmp(want, buf, bytes) == 0, "adjacent arrays: result differs from C");
  free(want);
  free(buf);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_args_oob(void) {
  jit_context *ctx = cpu_context();
  size_t bytes = sizeof(float) * 33;
  float *v = malloc(bytes);
  fill_floats(v, 33, 9);
  void *arr[] = {v};
  jit_arg a[] = {JIT_INT(32), JIT_PTR(v)};
  expect_args_error(ctx, oob_src, a, 2, arr, &bytes, 1, NULL);
  free(v);
  jit_context_destroy(ctx);
  return g_fail;
}

/* ---- devices ---- */
static int case_devices(void) {
  jit_device devs[] = {JIT_DEVICE_CUDA, JIT_DEVICE_EMU};
  const char *names[] = {"CUDA", "EMU"};
  for (int i = 0; i < 2; i++) {
    jit_context *ctx = jit_context_create(devs[i]);
    if (!ctx) {
      const char *e = jit_last_error();
      CHECK(e && *e, "jit_context_create(%s) returned NULL without jit_last_error()", names[i]);
      printf("%s: not available: %s\n", names[i], e ? e : "(null)");
    } else {
      CHECK(jit_context_device(ctx) == devs[i], "%s context reports device %d", names[i],
            (int)jit_context_device(ctx));
      const char *info = jit_context_info(ctx);
      CHECK(info && *info, "%s: empty jit_context_info", names[i]);
      printf("%s: %s\n", names[i], info ? info : "(null)");
      jit_context_destroy(ctx);
    }
  }
  jit_context *cpu = cpu_context();
  CHECK(jit_context_device(cpu) == JIT_DEVICE_CPU, "CPU context reports device %d",
        (int)jit_context_device(cpu));
  CHECK(jit_context_info(cpu) && *jit_context_info(cpu), "empty CPU context info");
  jit_context_destroy(cpu);
  return g_fail;
}

static int case_env_override(void) {
  setenv("JIT_DEVICE", "cpu", 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_AUTO);
  CHECK(ctx != NULL, "AUTO with JIT_DEVICE=cpu failed: %s", jit_last_error());
  if (ctx) {
    CHECK(jit_context_device(ctx) == JIT_DEVICE_CPU, "JIT_DEVICE=cpu gave device %d",
          (int)jit_context_device(ctx));
    printf("JIT_DEVICE=cpu: %s\n", jit_context_info(ctx));
    jit_context_destroy(ctx);
  }
  setenv("JIT_DEVICE", "emu", 1);
  ctx = jit_context_create(JIT_DEVICE_AUTO);
  if (ctx) {
    CHECK(jit_context_device(ctx) == JIT_DEVICE_EMU, "JIT_DEVICE=emu gave device %d",
          (int)jit_context_device(ctx));
    printf("JIT_DEVICE=emu: %s\n", jit_context_info(ctx));
    jit_context_destroy(ctx);
  } else {
    CHECK(jit_last_error() && *jit_last_error(), "JIT_DEVICE=emu: NULL without an error");
    printf("JIT_DEVICE=emu: not available: %s\n", jit_last_error());
  }
  /* The override applies to AUTO only: an explicit CPU request stays on the CPU. */
  ctx = jit_context_create(JIT_DEVICE_CPU);
  CHECK(ctx && jit_context_device(ctx) == JIT_DEVICE_CPU, "explicit CPU overridden by JIT_DEVICE");
  if (ctx) jit_context_destroy(ctx);
  unsetenv("JIT_DEVICE");
  return g_fail;
}

/* ---- cache ---- */
static unsigned long compiles(const jit_context *ctx) {
  jit_stats s;
  jit_context_stats(ctx, &s);
  return s.compiles;
}

/* Runs jacobi2d through the library and through gcc on the same data; 1 if equal. */
static int run_jac(jit_context *ctx, int T, int rows, int cols, unsigned seed) {
  size_t n = 2 * (size_t)rows * (size_t)cols;
  float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
  fill_floats(a, n, seed);
  memcpy(b, a, n * sizeof(float));
  jit_arg args[] = {JIT_INT(T), JIT_INT(rows), JIT_INT(cols), JIT_PTR(a)};
  int st = jit_stencil_run(ctx, jac_src, NULL, args, 4);
  CHECK(st == JIT_OK, "jacobi2d T=%d %dx%d: %s", T, rows, cols, jit_context_error(ctx));
  jacobi2d(T, rows, cols, (float(*)[rows][cols])b);
  int same = memcmp(a, b, n * sizeof(float)) == 0;
  CHECK(same, "jacobi2d T=%d %dx%d differs from gcc", T, rows, cols);
  free(a);
  free(b);
  return same;
}

static int case_cache_same(void) {
  jit_context *ctx = cpu_context();
  unsigned long c0 = compiles(ctx);
  jit_stats s1, s2;
  run_jac(ctx, 4, 20, 17, 1);
  jit_context_stats(ctx, &s1);
  CHECK(s1.compiles == c0 + 1, "first call: compiles %lu -> %lu", c0, s1.compiles);
  run_jac(ctx, 4, 20, 17, 2);
  jit_context_stats(ctx, &s2);
  CHECK(s2.compiles == s1.compiles, "same shape compiled again: %lu -> %lu", s1.compiles,
        s2.compiles);
  CHECK(s2.cache_hits == s1.cache_hits + 1, "cache_hits %lu -> %lu", s1.cache_hits, s2.cache_hits);
  CHECK(s2.runs == s1.runs + 1, "runs %lu -> %lu", s1.runs, s2.runs);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_cache_shape(void) {
  jit_context *ctx = cpu_context();
  unsigned long c0 = compiles(ctx);
  run_jac(ctx, 4, 20, 17, 1);
  CHECK(compiles(ctx) == c0 + 1, "first shape: %lu compiles", compiles(ctx) - c0);
  run_jac(ctx, 4, 21, 17, 1);
  CHECK(compiles(ctx) == c0 + 2, "new rows: %lu compiles", compiles(ctx) - c0);
  run_jac(ctx, 5, 21, 17, 1);
  CHECK(compiles(ctx) == c0 + 3, "new T: %lu compiles", compiles(ctx) - c0);
  run_jac(ctx, 4, 20, 17, 3);
  CHECK(compiles(ctx) == c0 + 3, "first shape again: %lu compiles", compiles(ctx) - c0);
  /* The cache belongs to the context: a new context compiles anew. */
  jit_context *other = cpu_context();
  unsigned long o0 = compiles(other);
  run_jac(other, 4, 20, 17, 1);
  CHECK(compiles(other) == o0 + 1, "fresh context: %lu compiles", compiles(other) - o0);
  jit_context_destroy(other);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_cache_scalar(void) {
  jit_context *ctx = cpu_context();
  enum { N = 50, T = 6 };
  float alphas[] = {0.5f, 0.25f, -3.0f, 0.5f};
  unsigned long c0 = compiles(ctx);
  for (int k = 0; k < 4; k++) {
    float a[2 * N], b[2 * N];
    fill_floats(a, 2 * N, 11);
    memcpy(b, a, sizeof a);
    jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_FLOAT(alphas[k]), JIT_PTR(a)};
    int st = jit_stencil_run(ctx, scaled_src, NULL, args, 4);
    CHECK(st == JIT_OK, "alpha=%g: %s", (double)alphas[k], jit_context_error(ctx));
    scaled(T, N, alphas[k], (float(*)[N])b);
    CHECK(memcmp(a, b, sizeof a) == 0, "alpha=%g: result differs from gcc", (double)alphas[k]);
  }
  CHECK(compiles(ctx) == c0 + 1, "float scalar values caused %lu compiles (want 1)",
        compiles(ctx) - c0);
  jit_context_destroy(ctx);
  return g_fail;
}

typedef struct thread_job {
  jit_context *ctx;
  pthread_barrier_t *barrier;
  int rows, cols, T;
  float *data;
  int status;
} thread_job;

static void *thread_main(void *p) {
  thread_job *j = p;
  jit_arg args[] = {JIT_INT(j->T), JIT_INT(j->rows), JIT_INT(j->cols), JIT_PTR(j->data)};
  pthread_barrier_wait(j->barrier);
  j->status = jit_stencil_run(j->ctx, jac_src, NULL, args, 4);
  return NULL;
}

static int case_cache_threads(void) {
  enum { NT = 4, R = 37, C = 41, T = 5 };
  jit_context *ctx = cpu_context();
  unsigned long c0 = compiles(ctx);
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, NT);
  thread_job jobs[NT];
  pthread_t th[NT];
  size_t n = 2 * (size_t)R * C;
  for (int i = 0; i < NT; i++) {
    jobs[i] = (thread_job){ctx, &barrier, R, C, T, malloc(n * sizeof(float)), -1};
    fill_floats(jobs[i].data, n, 100 + (unsigned)i);
    pthread_create(&th[i], NULL, thread_main, &jobs[i]);
  }
  for (int i = 0; i < NT; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&barrier);
  CHECK(compiles(ctx) == c0 + 1, "%d concurrent calls of one new shape compiled %lu times", NT,
        compiles(ctx) - c0);
  float *want = malloc(n * sizeof(float));
  for (int i = 0; i < NT; i++) {
    CHECK(jobs[i].status == JIT_OK, "thread %d: status %d: %s", i, jobs[i].status,
          jit_context_error(ctx));
    fill_floats(want, n, 100 + (unsigned)i);
    jacobi2d(T, R, C, (float(*)[R][C])want);
    CHECK(memcmp(want, jobs[i].data, n * sizeof(float)) == 0, "thread %d: result differs", i);
    free(jobs[i].data);
  }
  free(want);
  jit_context_destroy(ctx);
  return g_fail;
}

/* ---- the reference path and the lower-level kernel API ---- */
static int case_reference(void) {
  jit_context *ctx = cpu_context();
  enum { T = 3, R = 19, C = 23 };
  size_t n = 2 * R * C;
  float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
  fill_floats(a, n, 77);
  memcpy(b, a, n * sizeof(float));
  jit_arg args[] = {JIT_INT(T), JIT_INT(R), JIT_INT(C), JIT_PTR(a)};
  int st = jit_reference_run(ctx, jac_src, "jacobi2d", args, 4);
  CHECK(st == JIT_OK, "jit_reference_run: %s", jit_context_error(ctx));
  jacobi2d(T, R, C, (float(*)[R][C])b);
  CHECK(memcmp(a, b, n * sizeof(float)) == 0, "jit_reference_run differs from gcc");
  /* A wrong entry name is refused and leaves the data alone. */
  memcpy(b, a, n * sizeof(float));
  st = jit_stencil_run(ctx, jac_src, "no_such_function", args, 4);
  CHECK(st != JIT_OK, "unknown entry accepted");
  CHECK(jit_context_error(ctx) && *jit_context_error(ctx), "unknown entry: no message");
  CHECK(memcmp(a, b, n * sizeof(float)) == 0, "unknown entry: data modified");
  free(a);
  free(b);
  jit_context_destroy(ctx);
  return g_fail;
}

static int case_kernel(void) {
  jit_context *ctx = cpu_context();
  enum { T = 4, R = 33, C = 17 };
  jit_arg shape[] = {JIT_INT(T), JIT_INT(R), JIT_INT(C), JIT_PTR(NULL)};
  jit_kernel *k = NULL;
  int st = jit_kernel_compile(ctx, jac_src, NULL, shape, 4, &k);
  CHECK(st == JIT_OK && k, "jit_kernel_compile: %s", jit_context_error(ctx));
  if (!k) {
    jit_context_destroy(ctx);
    return 1;
  }
  CHECK(jit_kernel_device(k) == JIT_DEVICE_CPU, "kernel device %d", (int)jit_kernel_device(k));
  CHECK(jit_kernel_param_count(k) == 4, "param count %d", jit_kernel_param_count(k));
  const jit_param_info *g = jit_kernel_param(k, 3);
  CHECK(g && strcmp(g->name, "grid") == 0 && g->kind == JIT_ARG_PTR &&
            g->elem_kind == JIT_ARG_FLOAT && g->rank == 3 && !g->is_const && g->elems == 2 * R * C,
        "param 3 info wrong");
  const jit_param_info *p1 = jit_kernel_param(k, 1);
  CHECK(p1 && strcmp(p1->name, "rows") == 0 && p1->kind == JIT_ARG_INT && p1->rank == 0,
        "param 1 info wrong");
  const char *code = jit_kernel_code(k, JIT_CODE_C);
  CHECK(code && *code, "CPU kernel without C code");
  const char *sched = jit_kernel_schedule(k);
  CHECK(sched && *sched, "kernel without a schedule description");
  int tiles[8];
  int nt = jit_kernel_tile_sizes(k, tiles, 8);
  CHECK(nt >= 0 && nt <= 8, "tile size count %d", nt);
  jit_stage_times times;
  jit_kernel_stage_times(k, &times);
  CHECK(times.total > 0 && times.total >= times.parse, "stage times: total %g", times.total);

  size_t n = 2 * R * C;
  float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
  fill_floats(a, n, 4);
  memcpy(b, a, n * sizeof(float));
  jit_arg args[] = {JIT_INT(T), JIT_INT(R), JIT_INT(C), JIT_PTR(a)};
  st = jit_kernel_run(k, args, 4);
  CHECK(st == JIT_OK, "jit_kernel_run: %s", jit_context_error(ctx));
  jacobi2d(T, R, C, (float(*)[R][C])b);
  CHECK(memcmp(a, b, n * sizeof(float)) == 0, "jit_kernel_run differs from gcc");
  /* A kernel is specialized: other integer values are refused, data untouched. */
  memcpy(b, a, n * sizeof(float));
  jit_arg other[] = {JIT_INT(T + 1), JIT_INT(R), JIT_INT(C), JIT_PTR(a)};
  st = jit_kernel_run(k, other, 4);
  CHECK(st == JIT_ERR_ARGS, "kernel for T=%d ran with T=%d (status %d)", T, T + 1, st);
  CHECK(memcmp(a, b, n * sizeof(float)) == 0, "refused jit_kernel_run modified data");
  free(a);
  free(b);
  jit_kernel_release(k);

  jit_param_info params[8];
  int count = -1;
  st = jit_function_params(ctx, jac_src, "jacobi2d", params, 8, &count);
  CHECK(st == JIT_OK && count == 4, "jit_function_params: status %d count %d", st, count);
  if (count == 4)
    CHECK(params[0].kind == JIT_ARG_INT && params[3].kind == JIT_ARG_PTR && params[3].elems == 0 &&
              strcmp(params[2].name, "cols") == 0,
          "jit_function_params: wrong info");
  jit_context_destroy(ctx);
  return g_fail;
}

static const test_case cases[] = {
    {"args_count", case_args_count},
    {"args_kind", case_args_kind},
    {"args_null", case_args_null},
    {"args_negative", case_args_negative},
    {"args_overflow", case_args_overflow},
    {"args_overlap", case_args_overlap},
    {"args_oob", case_args_oob},
    {"devices", case_devices},
    {"env_override", case_env_override},
    {"cache_same", case_cache_same},
    {"cache_shape", case_cache_shape},
    {"cache_scalar", case_cache_scalar},
    {"cache_threads", case_cache_threads},
    {"reference", case_reference},
    {"kernel", case_kernel},
};

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "error") == 0) return case_error(argv[2]);
  return run_case(cases, sizeof cases / sizeof cases[0], argc == 2 ? argv[1] : NULL,
                  "api_test error FILE.c | api_test CASE");
}
