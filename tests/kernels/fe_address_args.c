// Addresses in arrays passed to functions, as C code passes them: &B[i][1], A[i] + 1 (a row
// plus an offset), X + b and &Y[b] in a flat array, &A[i] to a helper that reads p[-1] and
// p[1]. The callee's p[k] is the caller's element k on from the address (jit/parse.c,
// element_address and address_plus); the row update keeps the stencil form (every space loop
// parallel), so the driver runs it time-tiled too.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=2 N=5 M=3
// run: T=7 N=33 M=40
// run: T=12 N=70 M=67
static void row_update(int n, float *out, const float *up, const float *mid, const float *down) {
  for (int j = 0; j < n; j++)
    out[j] = 0.2f * (mid[j] + mid[j - 1] + mid[j + 1] + up[j] + down[j]);
}

static inline float avg3(const float *p) {
  return (p[-1] + p[0] + p[1]) / 3.0f;
}

static void axpy(int n, float a, const float *x, float *y) {
  for (int k = 0; k < n; k++) y[k] += a * x[k];
}

void fe_address_args(int T, int N, int M, float A[N][M], float B[N][M], float X[N], float Y[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      row_update(M - 2, &B[i][1], &A[i - 1][1], A[i] + 1, A[i + 1] + 1);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) A[i][j] = B[i][j];
  }
  for (int i = 1; i < N - 1; i++) X[i] = avg3(&A[i][0] + 1) + avg3(X + i);
  for (int b = 0; b + 2 <= N; b += 2) axpy(2, 0.5f, X + b, &Y[b]);
}
