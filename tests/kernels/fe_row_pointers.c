// Local pointers to rows and addresses, as C code walks a 2-D grid: `const float *up = A[i -
// 1], *mid = A[i], *dn = &A[i + 1][0]`, `float *out = B[i]`, one made from another (`mid + 1`),
// passed to functions, and on a flat array (`&F[i * M]`, `G + i * M`, reaching the rows above
// and below with p[j - M]). Each pointer stands for its address (jit/parse.c, address_local):
// no local is left, so the nests keep their stencil form and the driver time-tiles them.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=2 N=5 M=3
// run: T=7 N=33 M=40
// run: T=12 N=70 M=67
static void row_update(int n, float *out, const float *up, const float *mid, const float *down) {
  for (int j = 0; j < n; j++) out[j] = 0.2f * (mid[j] + mid[j - 1] + mid[j + 1] + up[j] + down[j]);
}

void fe_row_pointers(int T, int N, int M, float A[N][M], float B[N][M], float *restrict F,
                     float *restrict G) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) {
      float *out = B[i];
      const float *up = A[i - 1], *mid = A[i], *dn = &A[i + 1][0];
      const float *m1 = mid + 1;
      row_update(M - 2, out + 1, up + 1, m1, dn + 1);
    }
    for (int i = 1; i < N - 1; i++) {
      float *dst = &A[i][1];
      const float *src = B[i] + 1;
      for (int j = 0; j < M - 2; j++) dst[j] = src[j];
    }
  }
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) {
      const float *f = &F[i * M];
      float *g = G + i * M;
      for (int j = 1; j < M - 1; j++) g[j] = 0.25f * (f[j - 1] + f[j + 1] + f[j - M] + f[j + M]);
    }
    for (int i = 1; i < N - 1; i++) {
      float *f = &F[i * M], *g = &G[i * M];
      for (int j = 1; j < M - 1; j++) *(f + j) = g[j];
    }
  }
}
