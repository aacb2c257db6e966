// A statement directly in the time loop of a 2-D stencil over a full time history
// (A[t + 1][0][0] = A[t][0][0]), and one under an if there, every other step.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=3 M=4
// run: T=4 N=9 M=13
// run: T=6 N=34 M=21
void ti_time_stmt2d(int T, int N, int M, double A[T + 1][N][M]) {
  for (int t = 0; t < T; t++) {
    A[t + 1][0][0] = A[t][0][0];
    if (t % 2 == 0) A[t + 1][N - 1][M - 1] = A[t][N - 1][M - 1] - 1.0;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[t + 1][i][j] =
            0.2 * (A[t][i][j] + A[t][i - 1][j] + A[t][i + 1][j] + A[t][i][j - 1] + A[t][i][j + 1]);
  }
}
