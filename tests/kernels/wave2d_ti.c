// 2-D wave equation on a time-indexed array A[T][N][M]: A[t] from A[t-1] and A[t-2].
// run: T=2 N=4 M=4
// run: T=3 N=3 M=3
// run: T=3 N=1 M=7
// run: T=4 N=6 M=2
// run: T=5 N=11 M=13
// run: T=8 N=40 M=33
void wave2d_ti(int T, int N, int M, float A[T][N][M]) {
  for (int t = 2; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[t][i][j] = 2.0f * A[t - 1][i][j] - A[t - 2][i][j] +
                     0.05f * (A[t - 1][i - 1][j] + A[t - 1][i + 1][j] + A[t - 1][i][j - 1] +
                              A[t - 1][i][j + 1] - 4.0f * A[t - 1][i][j]);
}
