// Functions that return a value, declared by prototypes and defined after the kernel that
// calls them: the call of one without loops, a three-point sum, costs what its expression
// does (jit/scalar.c: its result is written into the statement that reads it), so the time
// loop keeps its stencil form and time-tiles; one with loops, a row's mean, runs once per
// step before the statement that reads it.
// fill: a=-1..1
// run: T=0 N=3
// run: T=1 N=4
// run: T=5 N=37
// run: T=24 N=300
static double sum3(const double *a, int i);
double mean(int n, const double *a);
void fe_value_proto(int T, int N, double a[N], double b[N], double m[1]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) b[i] = sum3(a, i) / 3;
    for (int i = 1; i < N - 1; i++) a[i] = sum3(b, i) * 0.25 + 0.25 * b[i];
  }
  m[0] = mean(N, a);
}
static double sum3(const double *a, int i) { return a[i - 1] + a[i] + a[i + 1]; }
double mean(int n, const double *a) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  return s / n;
}
