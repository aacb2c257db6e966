// 2-D asymmetric stencil of radius 3 (upwind-like): reaches 3 to lower i, 1 to higher, in
// double with a float coefficient array.
// run: T=0 N=8 M=8
// run: T=1 N=4 M=5
// run: T=2 N=5 M=3
// run: T=3 N=6 M=40
// run: T=5 N=64 M=33
void star2d_r3_asym(int T, int N, int M, const float C[M], double A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 3; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = A[t % 2][i][j] -
                               C[j] * (2.0 * A[t % 2][i][j] - 3.0 * A[t % 2][i - 1][j] +
                                       A[t % 2][i - 3][j] + 0.5 * A[t % 2][i + 1][j]) +
                               0.1 * (A[t % 2][i][j - 1] - A[t % 2][i][j + 1]);
}
