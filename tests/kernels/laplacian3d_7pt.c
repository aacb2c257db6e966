// 3-D 7-point Laplacian smoothing, double-buffered.
// run: T=0 N=3 M=3 K=4
// run: T=1 N=3 M=3 K=3
// run: T=2 N=3 M=3 K=3
// run: T=3 N=5 M=33 K=6
// run: T=4 N=17 M=9 K=129
// run: T=10 N=40 M=40 K=40
void laplacian3d_7pt(int T, int N, int M, int K, float A[2][N][M][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        for (int k = 1; k < K - 1; k++)
          A[(t + 1) % 2][i][j][k] =
              A[t % 2][i][j][k] +
              0.1f * (A[t % 2][i - 1][j][k] + A[t % 2][i + 1][j][k] + A[t % 2][i][j - 1][k] +
                      A[t % 2][i][j + 1][k] + A[t % 2][i][j][k - 1] + A[t % 2][i][j][k + 1] -
                      6.0f * A[t % 2][i][j][k]);
}
