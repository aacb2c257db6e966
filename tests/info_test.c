/* What the library tells about itself and a kernel: jit_version() against the header, and
 * jit_kernel_updates() against counts worked out by hand. */
#include <stenciljit.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void expect_updates(jit_context *ctx, const char *src, jit_arg *args, int nargs,
                           long long want) {
  jit_kernel *k = NULL;
  if (jit_kernel_compile(ctx, src, NULL, args, nargs, &k)) {
    printf("compile: %s\n", jit_context_error(ctx));
    failures++;
    return;
  }
  long long got = jit_kernel_updates(k);
  if (got != want) {
    printf("updates %lld, expected %lld, for\n%s\n", got, want, src);
    failures++;
  }
  jit_kernel_release(k);
}

int main(void) {
  if (strcmp(jit_version(), STENCILJIT_VERSION)) {
    printf("library %s, header %s\n", jit_version(), STENCILJIT_VERSION);
    failures++;
  }
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  jit_arg jacobi[] = {JIT_INT(3), JIT_INT(40), JIT_INT(33), JIT_PTR(NULL)};
  expect_updates(ctx,
                 "void j(int T, int N, int M, float A[2][N][M]) {\n"
                 "  for (int t = 0; t < T; t++)\n"
                 "    for (int i = 1; i < N - 1; i++)\n"
                 "      for (int j = 1; j < M - 1; j++)\n"
                 "        A[(t+1)%2][i][j] = A[t%2][i][j] + A[t%2][i-1][j] + A[t%2][i][j+1];\n"
                 "}\n",
                 jacobi, 4, 3LL * 38 * 31);
  /* A triangle and a second statement: N(N+1)/2 + N. */
  jit_arg tri[] = {JIT_INT(1000), JIT_PTR(NULL), JIT_PTR(NULL)};
  expect_updates(ctx,
                 "void t(int N, double A[N][N], double B[N]) {\n"
                 "  for (int i = 0; i < N; i++) {\n"
                 "    for (int j = 0; j <= i; j++) A[i][j] = A[i][j] * 0.5;\n"
                 "    B[i] = A[i][i];\n"
                 "  }\n"
                 "}\n",
                 tri, 3, 1000LL * 1001 / 2 + 1000);
  if (jit_kernel_updates(NULL) != -1) {
    printf("jit_kernel_updates(NULL) is not -1\n");
    failures++;
  }
  jit_context_destroy(ctx);
  if (!failures) printf("ok\n");
  return failures != 0;
}
