// A 2-D Jacobi stencil with a source at one point every fourth step (`if (t % 4 == 0)`): the
// source is a statement without space loops, placed where it writes (sched/place.c); placed at
// the grid's corner its dependences reached half the grid in a step and no tiling applied.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=5 N=4 M=6
// run: T=9 N=17 M=40
// run: T=13 N=37 M=131
// run: T=6 N=140 M=40
// run: T=8 N=100 M=200
void point_source(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2f * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                       A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    if (t % 4 == 0) A[(t + 1) % 2][N / 2][M / 2] += 1.0f;
  }
}
