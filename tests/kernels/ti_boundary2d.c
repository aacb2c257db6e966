// Time-indexed 2-D array with a time-dependent boundary row written inside the time loop
// (A[t][0][j] = ...) and the interior from the previous step.
// run: T=0 N=3 M=4
// run: T=1 N=2 M=3
// run: T=2 N=3 M=1
// run: T=3 N=5 M=6
// run: T=6 N=30 M=41
void ti_boundary2d(int T, int N, int M, float A[T + 1][N][M]) {
  for (int t = 1; t <= T; t++) {
    for (int j = 0; j < M; j++) A[t][0][j] = A[t - 1][0][j] * 0.9f + 0.1f * (float)t;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[t][i][j] = 0.2f * (A[t - 1][i][j] + A[t - 1][i - 1][j] + A[t - 1][i + 1][j] +
                             A[t - 1][i][j - 1] + A[t - 1][i][j + 1]);
  }
}
