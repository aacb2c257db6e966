// Iterated 2-D Laplacian smoothing (the PPCG hybrid-tiling benchmark shape).
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=4 M=3
// run: T=3 N=33 M=33
// run: T=7 N=100 M=65
// run: T=10 N=256 M=256
void laplacian2d_iter(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = A[t % 2][i][j] + 0.125f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                                          A[t % 2][i][j - 1] + A[t % 2][i][j + 1] -
                                                          4.0f * A[t % 2][i][j]);
}
