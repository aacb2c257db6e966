// Right-looking LU factorization without pivoting, in place: for each k a column scaled
// and a triangular trailing update; the divisor is kept away from zero.
// run: N=1
// run: N=2
// run: N=17
// run: N=32
// run: N=49
void lu_right(int N, double A[N][N]) {
  for (int k = 0; k < N; k++) {
    for (int i = k + 1; i < N; i++) A[i][k] = A[i][k] / (4.0 + A[k][k] * A[k][k]);
    for (int i = k + 1; i < N; i++)
      for (int j = k + 1; j < N; j++) A[i][j] = A[i][j] - 0.25 * A[i][k] * A[k][j];
  }
}
