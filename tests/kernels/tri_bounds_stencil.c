// Triangular and min/max bounds inside a time loop: row i updates columns i..min(i+K, M-2).
// run: T=0 N=4 M=4 K=2
// run: T=1 N=3 M=3 K=1
// run: T=2 N=1 M=5 K=3
// run: T=2 N=6 M=2 K=1
// run: T=3 N=9 M=12 K=4
// run: T=5 N=40 M=50 K=7
void tri_bounds_stencil(int T, int N, int M, int K, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = i; j <= (i + K < M - 2 ? i + K : M - 2); j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
}
