// long everywhere: long sizes and time, long iterators mixed with an int one in the
// subscripts (A[t % 2][i][j] with t, i long and j int), a long product in the value.
// run: T=0 N=3 M=4
// run: T=1 N=3 M=3
// run: T=2 N=4 M=1
// run: T=3 N=17 M=9
// run: T=5 N=40 M=37
void fe_long_iter(long T, long N, int M, float A[2][N][M]) {
  for (long t = 0; t < T; t++)
    for (long i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2f * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                       A[t % 2][i][j - 1] + A[t % 2][i][j + 1]) +
                               (float)(i * j % 3) * 1e-3f;
}
