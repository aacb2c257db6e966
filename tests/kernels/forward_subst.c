// Forward substitution with a lower triangular matrix (a trisolv shape): row i needs every
// earlier x, so i is sequential; the triangular inner loop is a reduction into x[i]. The
// divisor is kept away from zero so that random data stays finite.
// run: N=1
// run: N=2
// run: N=33
// run: N=64
// run: N=129
void forward_subst(int N, const double L[N][N], double x[N], const double b[N]) {
  for (int i = 0; i < N; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) x[i] -= L[i][j] * x[j];
    x[i] = x[i] / (2.0 + L[i][i] * L[i][i]);
  }
}
