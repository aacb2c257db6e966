// A double buffer copied out of the time loop at its last step (`if (t == T - 1)`): the copy is
// a statement of the last step alone, folded after the stencil's (2t + 1), so the tiles' reach
// has a stride, and its hull local variables (sched/liveout.c took its vertices, which isl
// refused: the compile failed).
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=2 M=4
// run: T=3 N=4 M=5
// run: T=13 N=37 M=131
// run: T=9 N=70 M=67
// run: T=8 N=100 M=200
void last_step_out(int T, int N, int M, float A[2][N][M], float out[N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2f * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                       A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    if (t == T - 1)
      for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) out[i][j] = A[(t + 1) % 2][i][j];
  }
}
