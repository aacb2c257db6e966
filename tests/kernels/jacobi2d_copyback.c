// 2-D Jacobi in the two-array copy-back form: per time step B = f(A), then A = B.
// run: T=0 N=6
// run: T=1 N=3
// run: T=3 N=3
// run: T=2 N=4
// run: T=4 N=33
// run: T=5 N=100
// run: T=10 N=256
void jacobi2d_copyback(int T, int N, float A[N][N], float B[N][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2f * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++) A[i][j] = B[i][j];
  }
}
