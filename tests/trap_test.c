/* Integer division whose divisor is zero (or INT_MIN / -1) in a user's kernel: on every
 * device the call fails with the source position of the division and leaves the caller's
 * arrays untouched; the same kernel with harmless data runs and matches C. The process must
 * not die of SIGFPE (the CPU device would trap without the checks).
 *
 * usage: trap_test cpu|emu */
#include <stenciljit.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* the first division, at 3:21, is the one reported: the first check that fails */
static const char divide[] = "void divide(int N, const int A[N], const int D[N], int Q[N]) {\n"
                             "  for (int i = 0; i < N; i++)\n"
                             "    Q[i] = 1 + A[i] / D[i] + A[i] % (i - i + D[i]);\n"
                             "}\n";
/* a divisor that is zero for every instance, written as a constant and as an expression */
static const char by_zero[] = "void by_zero(int N, int Q[N]) {\n"
                              "  for (int i = 0; i < N; i++)\n"
                              "    Q[i] = Q[i] % 0 + Q[i] / (i - i);\n"
                              "}\n";

enum { N = 300 };

static void run_divide(jit_context *ctx, const char *what, int a, int d, int at) {
  int A[N], D[N], Q[N], before[N];
  for (int i = 0; i < N; i++) {
    A[i] = (i * 37) % 101 - 50;
    D[i] = i % 7 + 1;
    Q[i] = before[i] = -i;
  }
  if (at >= 0) A[at] = a, D[at] = d;
  jit_arg args[] = {JIT_INT(N), JIT_PTR(A), JIT_PTR(D), JIT_PTR(Q)};
  int rc = jit_stencil_run(ctx, divide, NULL, args, 4);
  if (at < 0) {
    CHECK(rc == JIT_OK, "%s: %s", what, jit_context_error(ctx));
    for (int i = 0; i < N; i++)
      CHECK(Q[i] == 1 + A[i] / D[i] + A[i] % D[i], "%s: Q[%d] = %d", what, i, Q[i]);
    return;
  }
  const char *msg = jit_context_error(ctx);
  CHECK(rc == JIT_ERR_ARGS, "%s: status %d (%s)", what, rc, msg);
  CHECK(strstr(msg, "<source>:3:21:") && strstr(msg, "division"), "%s: message: %s", what, msg);
  CHECK(!memcmp(Q, before, sizeof Q), "%s: the caller's array changed", what);
}

int main(int argc, char **argv) {
  jit_device device = argc == 2 && !strcmp(argv[1], "emu") ? JIT_DEVICE_EMU : JIT_DEVICE_CPU;
  jit_context *ctx = jit_context_create(device);
  if (!ctx) {
    fprintf(stderr, "no context: %s\n", jit_last_error());
    return 1;
  }
  run_divide(ctx, "harmless data", 0, 0, -1);
  run_divide(ctx, "a zero divisor", 5, 0, 123);
  run_divide(ctx, "INT_MIN / -1", INT_MIN, -1, 7);
  run_divide(ctx, "a zero divisor in the last element", 5, 0, N - 1);
  run_divide(ctx, "harmless data again", 0, 0, -1); /* the context is still usable */

  int Q[N], before[N];
  for (int i = 0; i < N; i++) Q[i] = before[i] = i;
  jit_arg args[] = {JIT_INT(N), JIT_PTR(Q)};
  int rc = jit_stencil_run(ctx, by_zero, NULL, args, 2);
  CHECK(rc == JIT_ERR_ARGS && strstr(jit_context_error(ctx), "<source>:3:17:"),
        "by zero: status %d (%s)", rc, jit_context_error(ctx));
  CHECK(!memcmp(Q, before, sizeof Q), "by zero: the caller's array changed");
  jit_context_destroy(ctx);
  if (failures) return 1;
  printf("trap_test %s: ok\n", argc == 2 ? argv[1] : "cpu");
  return 0;
}
