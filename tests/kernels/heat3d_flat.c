// 3-D 7-point stencil where some extents are degenerate (M = 1 or 3: empty or one-point
// interiors).
// run: T=2 N=5 M=1 K=5
// run: T=2 N=3 M=3 K=3
// run: T=3 N=4 M=3 K=9
// run: T=3 N=12 M=6 K=3
// run: T=4 N=9 M=10 K=33
void heat3d_flat(int T, int N, int M, int K, double A[2][N][M][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        for (int k = 1; k < K - 1; k++)
          A[(t + 1) % 2][i][j][k] =
              0.5 * A[t % 2][i][j][k] +
              (A[t % 2][i - 1][j][k] + A[t % 2][i + 1][j][k] + A[t % 2][i][j - 1][k] +
               A[t % 2][i][j + 1][k] + A[t % 2][i][j][k - 1] + A[t % 2][i][j][k + 1]) /
                  12.0;
}
