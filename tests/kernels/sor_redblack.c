// Red-black successive over-relaxation, in place: the color's first column depends on
// (i + c) % 2, steps of 2.
// run: T=0 N=4 M=4
// run: T=1 N=3 M=3
// run: T=1 N=4 M=3
// run: T=2 N=5 M=8
// run: T=3 N=33 M=20
// run: T=6 N=64 M=100
void sor_redblack(int T, int N, int M, double A[N][M]) {
  for (int t = 0; t < T; t++)
    for (int c = 0; c < 2; c++)
      for (int i = 1; i < N - 1; i++)
        for (int j = 1 + (i + c) % 2; j < M - 1; j += 2)
          A[i][j] =
              A[i][j] +
              1.5 * (0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) - A[i][j]);
}
