// 3-D 13-point star of radius 2, non-cubic extents.
// run: T=0 N=5 M=6 K=7
// run: T=1 N=5 M=5 K=5
// run: T=2 N=4 M=9 K=6
// run: T=2 N=1 M=8 K=8
// run: T=3 N=9 M=7 K=20
// run: T=4 N=20 M=18 K=37
void heat3d_r2(int T, int N, int M, int K, float A[2][N][M][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 2; i < N - 2; i++)
      for (int j = 2; j < M - 2; j++)
        for (int k = 2; k < K - 2; k++)
          A[(t + 1) % 2][i][j][k] =
              0.4f * A[t % 2][i][j][k] +
              0.06f * (A[t % 2][i - 1][j][k] + A[t % 2][i + 1][j][k] + A[t % 2][i][j - 1][k] +
                       A[t % 2][i][j + 1][k] + A[t % 2][i][j][k - 1] + A[t % 2][i][j][k + 1]) +
              0.04f * (A[t % 2][i - 2][j][k] + A[t % 2][i + 2][j][k] + A[t % 2][i][j - 2][k] +
                       A[t % 2][i][j + 2][k] + A[t % 2][i][j][k - 2] + A[t % 2][i][j][k + 2]);
}
