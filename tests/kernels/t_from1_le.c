// A time loop from 1 to T inclusive, long shape parameters (int iterators), a padded grid
// A[N + 2][M + 2] with the interior 1..N, and the inner loop counting down.
// run: T=0 N=1 M=1
// run: T=1 N=1 M=3
// run: T=2 N=2 M=1
// run: T=3 N=7 M=5
// run: T=6 N=40 M=31
void t_from1_le(long T, long N, long M, double A[2][N + 2][M + 2]) {
  for (int t = 1; t <= T; t++)
    for (int i = 1; i <= N; i++)
      for (int j = M; j >= 1; j--)
        A[t % 2][i][j] = 0.125 * (A[(t - 1) % 2][i - 1][j] + A[(t - 1) % 2][i + 1][j] +
                                  A[(t - 1) % 2][i][j - 1] + A[(t - 1) % 2][i][j + 1]) +
                         0.5 * A[(t - 1) % 2][i][j];
}
