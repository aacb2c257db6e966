// 2-D heat equation, 9-point stencil (all eight neighbours), double-buffered. At the last size
// split tiling unrolls its partial tiles' code too, as for jacobi2d_5pt.c.
// run: T=0 N=4 M=5
// run: T=1 N=3 M=3
// run: T=2 N=3 M=3
// run: T=3 N=33 M=7
// run: T=5 N=100 M=129
// run: T=10 N=256 M=256
// run: T=17 N=200 M=600
void heat2d_9pt(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] =
            0.5f * A[t % 2][i][j] +
            0.0625f * (A[t % 2][i - 1][j - 1] + A[t % 2][i - 1][j] + A[t % 2][i - 1][j + 1] +
                       A[t % 2][i][j - 1] + A[t % 2][i][j + 1] + A[t % 2][i + 1][j - 1] +
                       A[t % 2][i + 1][j] + A[t % 2][i + 1][j + 1]);
}
