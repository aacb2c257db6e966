// A 2-D stencil whose opposite sides are set in one loop each (`A[0][j] = ..; A[N - 1][j] =
// ..;`): consecutive assignments are one statement, but these write at two places, so each is
// a statement of its own (sched/model.c) and sits where it writes (sched/place.c); as one
// statement they had no place and time tiling refused ('not a small constant set').
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=4 M=5
// run: T=5 N=9 M=12
// run: T=13 N=37 M=131
// run: T=6 N=140 M=40
void boundary_pairs(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    for (int j = 1; j < M - 1; j++) {
      A[(t + 1) % 2][0][j] = A[(t + 1) % 2][1][j];
      A[(t + 1) % 2][N - 1][j] = A[(t + 1) % 2][N - 2][j];
    }
    for (int i = 0; i < N; i++) {
      A[(t + 1) % 2][i][0] = A[(t + 1) % 2][i][1];
      A[(t + 1) % 2][i][M - 1] = 0.5f * A[(t + 1) % 2][i][M - 2];
    }
  }
}
