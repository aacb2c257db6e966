// The function called through the API returns a value: the residual of a Jacobi solve that
// stops on it or at its cap. A function returning T takes one more argument after its
// parameters, a pointer to one T (its parameter `return`), which receives the value; the
// reference (gcc, TinyCC) is called as written and what it returns is stored there.
// run: T=0 N=3
// run: T=1 N=5
// run: T=9 N=40
// run: T=50 N=300
static double residual(int n, const double *u) {
  double r = 0;
  for (int i = 1; i < n - 1; i++) {
    double d = u[i - 1] - 2 * u[i] + u[i + 1];
    r += d * d;
  }
  return r;
}

double fe_returns(int T, int N, double U[N], double V[N]) {
  double r = residual(N, U);
  for (int t = 0; t < T && r > 1e-3; t++) {
    for (int i = 1; i < N - 1; i++) V[i] = 0.5 * (U[i - 1] + U[i + 1]);
    for (int i = 1; i < N - 1; i++) U[i] = V[i];
    r = residual(N, U);
  }
  return r;
}
