// PolyBench 4 jacobi-2d: two stencil nests per time step, A -> B then B -> A, in double.
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=3
// run: T=3 N=33
// run: T=4 N=129
// run: T=10 N=256
void jacobi2d_polybench(int T, int N, double A[N][N], double B[N][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
}
