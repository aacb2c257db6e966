// 2-D Jacobi, 5 points, double precision with a double literal.
// run: T=0 N=4 M=4
// run: T=1 N=3 M=3
// run: T=2 N=5 M=3
// run: T=4 N=33 M=33
// run: T=6 N=129 M=100
// run: T=10 N=256 M=256
void jacobi2d_double(int T, int N, int M, double A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2 * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                      A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
}
