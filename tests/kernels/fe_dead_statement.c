// A statement whose condition never holds ((i + j + t) % 3 is never 6): it has no
// instances, and every stage (dependences, reductions, schedules) must take it as such.
// run: T=0 N=3 M=3
// run: T=1 N=1 M=1
// run: T=2 N=3 M=3
// run: T=3 N=7 M=5
// run: T=4 N=33 M=17
void fe_dead_statement(int T, int N, int M, float A[N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        if ((i + j + t) % 3 == 6)
          A[i][j] = A[i][j] + A[i - 1][j];
        if (i == j) A[i][j] = A[i][j] * 0.5f;
      }
}
