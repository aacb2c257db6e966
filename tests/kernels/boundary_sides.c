// A 2-D stencil whose four sides are set in loops of their own after each step (zero-gradient
// rows, a damped last column): each side's statement is placed where it writes (sched/place.c),
// the columns along the first dimension; with their loops as the innermost dimension the
// columns' dependences reached across the grid and no tiling applied.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=4 M=3
// run: T=5 N=9 M=12
// run: T=13 N=37 M=131
// run: T=6 N=140 M=40
void boundary_sides(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    for (int j = 1; j < M - 1; j++) A[(t + 1) % 2][0][j] = A[(t + 1) % 2][1][j];
    for (int j = 1; j < M - 1; j++) A[(t + 1) % 2][N - 1][j] = A[(t + 1) % 2][N - 2][j];
    for (int i = 1; i < N - 1; i++) A[(t + 1) % 2][i][0] = A[(t + 1) % 2][i][1];
    for (int i = 1; i < N - 1; i++) A[(t + 1) % 2][i][M - 1] = 0.5f * A[(t + 1) % 2][i][M - 2];
  }
}
