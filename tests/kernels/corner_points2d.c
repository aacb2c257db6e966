// 2-D Jacobi with the four corners of the grid updated from a neighbour each step: 0-D
// statements in a 2-D stencil's step, alongside the stencil.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=4 M=7
// run: T=5 N=33 M=17
// run: T=6 N=70 M=129
void corner_points2d(int T, int N, int M, double A[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2 * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                      A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    A[(t + 1) % 2][0][0] = A[t % 2][1][1];
    A[(t + 1) % 2][0][M - 1] = A[t % 2][1][M - 2];
    A[(t + 1) % 2][N - 1][0] = A[t % 2][N - 2][1];
    A[(t + 1) % 2][N - 1][M - 1] = A[t % 2][N - 2][M - 2];
  }
}
