// 3-D heat equation, 27-point stencil, double-buffered.
// run: T=0 N=3 M=3 K=3
// run: T=1 N=3 M=3 K=3
// run: T=2 N=3 M=4 K=5
// run: T=2 N=2 M=5 K=5
// run: T=3 N=10 M=9 K=33
// run: T=10 N=40 M=40 K=40
void heat3d_27pt(int T, int N, int M, int K, float A[2][N][M][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        for (int k = 1; k < K - 1; k++)
          A[(t + 1) % 2][i][j][k] =
              0.25f * A[t % 2][i][j][k] +
              0.0625f * (A[t % 2][i - 1][j][k] + A[t % 2][i + 1][j][k] + A[t % 2][i][j - 1][k] +
                         A[t % 2][i][j + 1][k] + A[t % 2][i][j][k - 1] + A[t % 2][i][j][k + 1]) +
              0.03125f * (A[t % 2][i - 1][j - 1][k] + A[t % 2][i - 1][j + 1][k] +
                          A[t % 2][i + 1][j - 1][k] + A[t % 2][i + 1][j + 1][k] +
                          A[t % 2][i - 1][j][k - 1] + A[t % 2][i - 1][j][k + 1] +
                          A[t % 2][i + 1][j][k - 1] + A[t % 2][i + 1][j][k + 1] +
                          A[t % 2][i][j - 1][k - 1] + A[t % 2][i][j - 1][k + 1] +
                          A[t % 2][i][j + 1][k - 1] + A[t % 2][i][j + 1][k + 1]) +
              0.015625f * (A[t % 2][i - 1][j - 1][k - 1] + A[t % 2][i - 1][j - 1][k + 1] +
                           A[t % 2][i - 1][j + 1][k - 1] + A[t % 2][i - 1][j + 1][k + 1] +
                           A[t % 2][i + 1][j - 1][k - 1] + A[t % 2][i + 1][j - 1][k + 1] +
                           A[t % 2][i + 1][j + 1][k - 1] + A[t % 2][i + 1][j + 1][k + 1]);
}
