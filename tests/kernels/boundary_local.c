// A 2-D stencil whose sides are set in one loop through locals (`float s = c[i];
// A[i][0] = s * ..; A[i][M - 1] = s * ..;`): a local read only by the array assignments right
// after it has its value written in each (jit/scalar.c; read by several, where none of them
// writes what it reads), so the writes are array assignments at two places, a statement each
// (sched/model.c). With the locals kept they were one statement at no one place: time tiling
// refused them ('not a small constant set') once M passed the tiles.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=1 N=3 M=4
// run: T=2 N=4 M=5
// run: T=5 N=9 M=12
// run: T=13 N=37 M=131
// run: T=6 N=140 M=40
void boundary_local(int T, int N, int M, const float c[N], float A[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    for (int i = 0; i < N; i++) {
      float s = c[i] * 0.5f;
      A[(t + 1) % 2][i][0] = s * A[(t + 1) % 2][i][1];
      double r = 0.5 * A[(t + 1) % 2][i][M - 2];
      A[(t + 1) % 2][i][M - 1] = r + s;
    }
  }
}
