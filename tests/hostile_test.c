/* hostile_test: the public API called as a hostile or careless caller would, one case per
 * invocation; every call must fail cleanly (a status and a message, arrays untouched) or
 * succeed, never crash.
 *
 *   hostile_test CASE    (cases in the table at the end) */
#include <stenciljit.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "test_common.h"

static const char src[] = "void scale(int n, float a[n], float b[n]) {\n"
                          "  for (int i = 0; i < n; i++)\n"
                          "    b[i] = 2.0f * a[i];\n"
                          "}\n";

/* st is JIT_ERR_ARGS and this thread's message mentions what. */
static void expect_args(int st, const char *what, const char *call) {
  const char *msg = jit_last_error();
  CHECK(st == JIT_ERR_ARGS, "%s: status %d, expected JIT_ERR_ARGS (%s)", call, st, msg);
  CHECK(msg && strstr(msg, what), "%s: message should mention '%s': %s", call, what, msg);
  printf("%s: %s\n", call, msg);
}

static jit_context *cpu(void) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  if (!ctx) {
    fprintf(stderr, "jit_context_create: %s\n", jit_last_error());
    exit(1);
  }
  return ctx;
}

enum { N = 64 };

/* NULL context, source, args and outputs at every entry point. */
static int case_null(void) {
  jit_context *ctx = cpu();
  float a[N], b[N], b0[N];
  for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = b0[i] = -1.0f;
  jit_arg args[] = {JIT_INT(N), JIT_PTR(a), JIT_PTR(b)};
  jit_kernel *k = (jit_kernel *)&g_fail; /* must be set to NULL on failure */

  expect_args(jit_stencil_run(NULL, src, NULL, args, 3), "context", "stencil_run(NULL ctx)");
  expect_args(jit_stencil_run(ctx, NULL, NULL, args, 3), "source", "stencil_run(NULL source)");
  expect_args(jit_stencil_run(ctx, src, NULL, NULL, 3), "args", "stencil_run(NULL args)");
  expect_args(jit_stencil_run(ctx, src, NULL, args, -1), "nargs", "stencil_run(nargs -1)");
  expect_args(jit_reference_run(NULL, src, NULL, args, 3), "context", "reference_run(NULL ctx)");
  expect_args(jit_reference_run(ctx, NULL, NULL, args, 3), "source", "reference_run(NULL src)");
  expect_args(jit_reference_run(ctx, src, NULL, NULL, 3), "args", "reference_run(NULL args)");
  expect_args(jit_kernel_compile(ctx, src, NULL, args, 3, NULL), "out", "kernel_compile(NULL out)");
  expect_args(jit_kernel_compile(NULL, src, NULL, args, 3, &k), "context", "kernel_compile(NULL)");
  CHECK(k == NULL, "kernel_compile left *out set on failure");
  expect_args(jit_kernel_compile(ctx, NULL, NULL, args, 3, &k), "source", "kernel_compile(src)");
  expect_args(jit_kernel_compile(ctx, src, NULL, NULL, 3, &k), "args", "kernel_compile(args)");
  expect_args(jit_kernel_run(NULL, args, 3), "kernel", "kernel_run(NULL kernel)");
  jit_arg no_buffer[] = {JIT_INT(N), JIT_BUFFER(NULL), JIT_PTR(b)};
  expect_args(jit_stencil_run(ctx, src, NULL, no_buffer, 3), "argument 2",
              "stencil_run(JIT_BUFFER(NULL))");
  jit_arg no_buf[] = {JIT_INT(N), JIT_PTR(a), JIT_BUF(NULL, sizeof b)};
  expect_args(jit_stencil_run(ctx, src, NULL, no_buf, 3), "argument 3",
              "stencil_run(JIT_BUF(NULL, bytes))");
  CHECK(!memcmp(b, b0, sizeof b), "a refused call wrote the output array");

  jit_stats st;
  expect_args(jit_context_stats(NULL, &st), "context", "context_stats(NULL ctx)");
  expect_args(jit_context_stats(ctx, NULL), "out", "context_stats(NULL out)");
  expect_args(jit_context_set_options(NULL, NULL), "context", "set_options(NULL ctx)");
  expect_args(jit_context_clear_cache(NULL), "jit_context_clear_cache", "clear_cache(NULL ctx)");
  CHECK(jit_context_set_options(ctx, NULL) == JIT_OK, "set_options(ctx, NULL) is the defaults");
  CHECK(jit_context_device(NULL) == JIT_DEVICE_AUTO, "device(NULL)");
  CHECK(jit_context_info(NULL) && !*jit_context_info(NULL), "info(NULL) is not \"\"");
  CHECK(jit_context_error(NULL) == jit_last_error(), "error(NULL) is not jit_last_error()");
  jit_context_destroy(NULL);

  CHECK(jit_kernel_code(NULL, JIT_CODE_C) == NULL, "code(NULL)");
  CHECK(jit_kernel_schedule(NULL) == NULL, "schedule(NULL)");
  CHECK(jit_kernel_device(NULL) == JIT_DEVICE_AUTO, "kernel_device(NULL)");
  CHECK(jit_kernel_param_count(NULL) == -1, "param_count(NULL)");
  CHECK(jit_kernel_param(NULL, 0) == NULL, "param(NULL)");
  long extents[4];
  CHECK(jit_kernel_param_shape(NULL, 0, extents, 4) == -1, "param_shape(NULL)");
  CHECK(jit_kernel_last_device_time(NULL) < 0, "last_device_time(NULL)");
  CHECK(jit_kernel_updates(NULL) == -1, "updates(NULL)");
  int sizes[4];
  CHECK(jit_kernel_tile_sizes(NULL, sizes, 4) == -1, "tile_sizes(NULL)");
  jit_stage_times times;
  memset(&times, 0xff, sizeof times);
  jit_kernel_stage_times(NULL, &times);
  CHECK(times.total == 0, "stage_times(NULL) did not zero");
  jit_kernel_stage_times(NULL, NULL);
  jit_kernel_release(NULL);

  /* device-resident buffers */
  expect_args(jit_buffer_create(NULL, 16) ? JIT_OK : JIT_ERR_ARGS, "jit_buffer_create",
              "buffer_create(NULL ctx)");
  expect_args(jit_buffer_wrap(NULL, (uintptr_t)a, sizeof a) ? JIT_OK : JIT_ERR_ARGS,
              "jit_buffer_wrap", "buffer_wrap(NULL ctx)");
  expect_args(jit_buffer_upload(NULL, a, sizeof a), "jit_buffer_upload",
              "buffer_upload(NULL buffer)");
  expect_args(jit_buffer_download(NULL, b, sizeof b), "jit_buffer_download",
              "buffer_download(NULL buffer)");
  CHECK(jit_buffer_size(NULL) == 0 && jit_buffer_address(NULL) == 0, "size/address(NULL)");
  jit_buffer_destroy(NULL);
  jit_buffer *buf = jit_buffer_create(ctx, sizeof b);
  CHECK(buf != NULL, "buffer_create: %s", jit_last_error());
  if (buf) {
    expect_args(jit_buffer_upload(buf, NULL, sizeof a), "host pointer", "buffer_upload(NULL src)");
    expect_args(jit_buffer_download(buf, NULL, sizeof b), "host pointer",
                "buffer_download(NULL dst)");
    jit_buffer_destroy(buf);
  }

  jit_param_info info[4];
  int count = -1;
  expect_args(jit_function_params(NULL, src, NULL, info, 4, &count), "context", "params(NULL)");
  expect_args(jit_function_params(ctx, NULL, NULL, info, 4, &count), "source", "params(src)");
  expect_args(jit_function_params(ctx, src, NULL, NULL, 4, &count), "out", "params(NULL out)");
  expect_args(jit_function_params(ctx, src, NULL, info, -2, &count), "max", "params(max -2)");
  CHECK(count == 0, "count %d after a refused call", count);
  CHECK(jit_function_params(ctx, src, NULL, info, 4, NULL) == JIT_OK, "count may be NULL");
  CHECK(jit_function_params(ctx, src, NULL, NULL, 0, &count) == JIT_OK && count == 0,
        "max 0 with out NULL is fine");

  /* a kernel's accessors with bad sizes or kinds */
  k = NULL;
  CHECK(jit_kernel_compile(ctx, src, NULL, args, 3, &k) == JIT_OK, "%s", jit_context_error(ctx));
  if (k) {
    CHECK(jit_kernel_tile_sizes(k, NULL, 4) == -1, "tile_sizes(NULL sizes, 4)");
    CHECK(jit_kernel_tile_sizes(k, NULL, 0) >= 0, "tile_sizes(NULL, 0) is a count");
    expect_args(jit_kernel_param_shape(k, 1, NULL, 4) == -1 ? JIT_ERR_ARGS : JIT_OK,
                "jit_kernel_param_shape", "param_shape(NULL extents, 4)");
    CHECK(jit_kernel_param_shape(k, 1, NULL, 0) == 1, "param_shape(NULL, 0) is the rank");
    expect_args(jit_kernel_param_shape(k, 3, extents, 4) == -1 ? JIT_ERR_ARGS : JIT_OK,
                "no parameter 3", "param_shape(index 3)");
    CHECK(jit_kernel_param_shape(k, 1, extents, 4) == 1 && extents[0] == N, "param_shape(a)");
    jit_kernel_stage_times(k, NULL);
    CHECK(jit_kernel_code(k, (jit_code_kind)77) == NULL, "code of kind 77");
    CHECK(jit_kernel_param(k, -1) == NULL && jit_kernel_param(k, 3) == NULL, "param range");
    expect_args(jit_kernel_run(k, NULL, 3), "3 given", "kernel_run(NULL args)");
    expect_args(jit_kernel_run(k, args, -5), "given", "kernel_run(nargs -5)");
    jit_kernel_release(k);
  }
  CHECK(!memcmp(b, b0, sizeof b), "a refused call wrote the output array");
  jit_context_destroy(ctx);
  return g_fail;
}

/* jit_function_params' names stay valid across later calls, until the context goes. */
static int case_param_names(void) {
  jit_context *ctx = cpu();
  jit_param_info first[3], second[2];
  int n1 = 0, n2 = 0;
  CHECK(jit_function_params(ctx, src, NULL, first, 3, &n1) == JIT_OK && n1 == 3, "first");
  const char *other = "void other(int len, double xs[len]) {\n"
                      "  for (int i = 0; i < len; i++) xs[i] = 1.0;\n"
                      "}\n";
  for (int r = 0; r < 50; r++) /* a later call must not free the earlier names */
    CHECK(jit_function_params(ctx, other, NULL, second, 2, &n2) == JIT_OK && n2 == 2, "second");
  CHECK(jit_function_params(ctx, "void bad(", NULL, second, 2, &n2) == JIT_ERR_SYNTAX,
        "syntax error expected");
  CHECK(n1 == 3 && !strcmp(first[0].name, "n") && !strcmp(first[1].name, "a") &&
            !strcmp(first[2].name, "b"),
        "first names changed: %s %s %s", first[0].name, first[1].name, first[2].name);
  CHECK(!strcmp(second[0].name, "len") && !strcmp(second[1].name, "xs"), "second names");
  /* the same name is one copy: the table grows with distinct names only */
  jit_param_info again[3];
  CHECK(jit_function_params(ctx, src, NULL, again, 3, &n1) == JIT_OK &&
            again[1].name == first[1].name,
        "a name is not kept once");
  jit_context_destroy(ctx);
  return g_fail;
}

/* Thread counts: negative refused; absurd ones clamped and the clamp reported. */
static int case_threads(void) {
  jit_context *ctx = cpu();
  printf("default: %s\n", jit_context_info(ctx));
  CHECK(strstr(jit_context_info(ctx), "worker thread"), "info does not give the threads: %s",
        jit_context_info(ctx));
  jit_options o;
  memset(&o, 0, sizeof o);
  o.threads = -4;
  expect_args(jit_context_set_options(ctx, &o), "threads", "set_options(threads -4)");
  o.threads = 100000;
  CHECK(jit_context_set_options(ctx, &o) == JIT_OK, "threads 100000: %s", jit_last_error());
  const char *info = jit_context_info(ctx);
  printf("threads 100000: %s\n", info);
  CHECK(strstr(info, "100000 asked and clamped"), "the clamp is not reported: %s", info);
  int used = 0;
  CHECK(sscanf(strstr(info, "; ") + 2, "%d", &used) == 1 && used >= 1 && used <= 256,
        "clamped to %d", used);
  /* the clamped context still computes the C result */
  float a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = (float)i * 0.5f, b[i] = 0;
  jit_arg args[] = {JIT_INT(N), JIT_PTR(a), JIT_PTR(b)};
  CHECK(jit_stencil_run(ctx, src, NULL, args, 3) == JIT_OK, "%s", jit_context_error(ctx));
  for (int i = 0; i < N; i++) CHECK(b[i] == 2.0f * a[i], "b[%d] = %g", i, (double)b[i]);
  o.threads = 2;
  CHECK(jit_context_set_options(ctx, &o) == JIT_OK, "threads 2");
  CHECK(!strstr(jit_context_info(ctx), "clamped"), "clamp still reported: %s",
        jit_context_info(ctx));
  jit_context_destroy(ctx);
  return g_fail;
}

/* A function of many loop nests, refused by a small compile budget with a message that
 * names the limit and how to raise it, then compiled once the budget is raised. */
static char *many_nests(int count) {
  sj_buf b = {0};
  sj_buf_puts(&b, "void many(int n, float x[n], float y[n]) {\n");
  for (int k = 0; k < count; k++)
    sj_buf_printf(&b, "  for (int i = 1; i < n - 1; i++) %s[i] = %s[i - 1] + %s[i + 1];\n",
                  k % 2 ? "x" : "y", k % 2 ? "y" : "x", k % 2 ? "y" : "x");
  sj_buf_puts(&b, "}\n");
  return sj_buf_take(&b);
}

static int case_limit(void) {
  jit_context *ctx = cpu();
  char *text = many_nests(40);
  float x[N], y[N], x0[N], y0[N];
  for (int i = 0; i < N; i++) x[i] = x0[i] = (float)i, y[i] = y0[i] = (float)-i;
  jit_arg args[] = {JIT_INT(N), JIT_PTR(x), JIT_PTR(y)};
  jit_options o;
  memset(&o, 0, sizeof o);
  o.max_compile_ops = 20000;
  o.source_name = "many.c";
  CHECK(jit_context_set_options(ctx, &o) == JIT_OK, "set_options");
  int st = jit_stencil_run(ctx, text, NULL, args, 3);
  const char *msg = jit_context_error(ctx);
  printf("budget 20000: status %d: %s\n", st, msg);
  CHECK(st == JIT_ERR_LIMIT, "status %d, expected JIT_ERR_LIMIT", st);
  CHECK(strstr(msg, "many.c:1:6:") && strstr(msg, "20000") &&
            strstr(msg, "jit_options.max_compile_ops") && strstr(msg, "JIT_MAX_COMPILE_OPS"),
        "the message does not name the place, the limit and how to raise it: %s", msg);
  CHECK(!memcmp(x, x0, sizeof x) && !memcmp(y, y0, sizeof y), "arrays changed");
  /* the environment variable is the fallback of the option */
  o.max_compile_ops = 0;
  jit_context_set_options(ctx, &o);
  setenv("JIT_MAX_COMPILE_OPS", "30000", 1);
  st = jit_stencil_run(ctx, text, NULL, args, 3);
  CHECK(st == JIT_ERR_LIMIT && strstr(jit_context_error(ctx), "30000"), "env budget: %d %s", st,
        jit_context_error(ctx));
  unsetenv("JIT_MAX_COMPILE_OPS");
  /* the default budget compiles it, and the result is C's */
  st = jit_stencil_run(ctx, text, NULL, args, 3);
  CHECK(st == JIT_OK, "default budget: %s", jit_context_error(ctx));
  for (int k = 0; k < 40; k++) {
    float *in = k % 2 ? y0 : x0, *out = k % 2 ? x0 : y0;
    for (int i = 1; i < N - 1; i++) out[i] = in[i - 1] + in[i + 1];
  }
  CHECK(!memcmp(x, x0, sizeof x) && !memcmp(y, y0, sizeof y), "result differs from C");
  free(text);
  jit_context_destroy(ctx);
  return g_fail;
}

/* jit_context_set_options in a loop while other threads run kernels of the context. */
typedef struct runner {
  jit_context *ctx;
  volatile int *stop;
  int runs, failures;
} runner;

static void *run_loop(void *p) {
  runner *r = p;
  enum { M = 4096 };
  float *a = malloc(M * sizeof *a), *b = malloc(M * sizeof *b);
  for (int i = 0; i < M; i++) a[i] = (float)i;
  jit_arg args[] = {JIT_INT(M), JIT_PTR(a), JIT_PTR(b)};
  while (!__atomic_load_n(r->stop, __ATOMIC_ACQUIRE) || r->runs < 20) {
    memset(b, 0, M * sizeof *b);
    if (jit_stencil_run(r->ctx, src, NULL, args, 3) != JIT_OK) r->failures++;
    for (int i = 0; i < M; i++)
      if (b[i] != 2.0f * a[i]) {
        r->failures++;
        break;
      }
    r->runs++;
  }
  free(a);
  free(b);
  return NULL;
}

static int case_options_while_running(void) {
  jit_context *ctx = cpu();
  volatile int stop = 0;
  runner rs[3];
  pthread_t th[3];
  for (int t = 0; t < 3; t++) {
    rs[t] = (runner){ctx, &stop, 0, 0};
    pthread_create(&th[t], NULL, run_loop, &rs[t]);
  }
  for (int i = 0; i < 200; i++) {
    jit_options o;
    memset(&o, 0, sizeof o);
    o.threads = 1 + i % 4;
    o.source_name = i % 2 ? "one.c" : "two.c";
    CHECK(jit_context_set_options(ctx, &o) == JIT_OK, "set_options %d", i);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  for (int t = 0; t < 3; t++) {
    pthread_join(th[t], NULL);
    CHECK(rs[t].failures == 0, "thread %d: %d of %d runs failed", t, rs[t].failures, rs[t].runs);
    printf("thread %d: %d runs, %d failures\n", t, rs[t].runs, rs[t].failures);
  }
  jit_context_destroy(ctx);
  return g_fail;
}

/* Sources a fuzzer or a careless user gives: every one refused with line:col, none
 * crashing. */
static int case_sources(void) {
  static const char *const bad[] = {
      "",
      "void",
      "void f(",
      "void f(int n, float a[n]) { for (int i = 0; i < n; i++) a[i] = a[i] +; }",
      "void f(int n, float a[n]) { for (;;) a[0] = 1; }",
      "void f(int n, float a[n]) { for (int i = 0; i < n; i++) a[i * i] = 1; }",
      "void f(int n, float a[n]) { for (int i = 0; i < n; i += 0) a[i] = 1; }",
      "void f(int n, float a[n]) { for (unsigned i = n - 1; i >= 0; i--) a[i] = 1; }",
      "void f(int n, float a[n]) { a[99999999999999999999] = 1; }",
      "void f(int n, float a[n]) { for (int i = 0; i < 2147483647 * 2; i++) a[0] = 1; }",
      "void f(int n, float a[n]) { /* unterminated",
      "void f(int n, float a[n]) { a[0] = \"x\"; }",
      "\xff\xfe\x00",
      "void f(int n, float a[n]) { for (int i = 0; i < n; i++) a[i] = a[i] \x01; }",
  };
  jit_context *ctx = cpu();
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, a0[8];
  memcpy(a0, a, sizeof a);
  jit_arg args[] = {JIT_INT(8), JIT_PTR(a)};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int st = jit_stencil_run(ctx, bad[i], NULL, args, 2);
    const char *msg = jit_context_error(ctx);
    int line = 0, col = 0;
    const char *pos = strstr(msg, "<source>:");
    CHECK(st == JIT_ERR_SYNTAX || st == JIT_ERR_UNSUPPORTED || st == JIT_ERR_ARGS,
          "source %zu: status %d: %s", i, st, msg);
    CHECK(pos && sscanf(pos, "<source>:%d:%d:", &line, &col) == 2 && line >= 1 && col >= 1,
          "source %zu: no line:col: %s", i, msg);
    printf("source %zu: %d: %s\n", i, st, msg);
  }
  CHECK(!memcmp(a, a0, sizeof a), "a refused source changed the array");
  jit_context_destroy(ctx);
  return g_fail;
}

static const test_case cases[] = {
    {"null", case_null},
    {"param_names", case_param_names},
    {"threads", case_threads},
    {"limit", case_limit},
    {"options_while_running", case_options_while_running},
    {"sources", case_sources},
};

int main(int argc, char **argv) {
  return run_case(cases, sizeof cases / sizeof cases[0], argc == 2 ? argv[1] : NULL,
                  "hostile_test CASE");
}
