// Functions that return a value computed with loops (jit/parse.c, value functions): a dot
// product of rows, a search that returns from inside its loop, a window sum whose radius is an
// argument, one calling another, int results, calls in an if's condition, in a declaration's
// initializers (the second reading the first's value) and in a void function's argument. Each
// call's statements run before the statement that holds it; its result, a local of one
// element, is a scalar (jit/scalar.c). Macros in their bodies are expanded once, though the
// parser reads those bodies twice (jit/macro.c, sj_pp_unread).
// fill: A=-4..4 W=-2..2
// run: N=1 M=1
// run: N=5 M=3
// run: N=40 M=33
static double dot(int n, const double *x, const double *y) {
  double s = 0;
  for (int k = 0; k < n; k++) s += x[k] * y[k];
  return s;
}
static int first_above(int n, const double *x, double limit) {
  for (int k = 0; k < n; k++)
    if (x[k] > limit) return k;
  return -1;
}
#define OUTSIDE(k, n) ((k) < 0 || (k) >= (n))
#define TINY 0
static double window(int n, const double *x, int i, int r) {
  double s = 0;
  for (int k = i - r; k <= i + r; k++) {
    if (OUTSIDE(k, n)) continue;
    s += x[k];
  }
  return s;
}
static double norm2(int n, const double *x) {
  double d = dot(n, x, x);
  return d > TINY ? d : 0;
}
static void scale(int n, double *x, double f) {
  for (int k = 0; k < n; k++) x[k] *= f;
}
void fe_value_loops(int N, int M, double A[N][M], double W[M], double R[N], int F[N],
                    double S[N][M]) {
  for (int i = 0; i < N; i++) {
    R[i] = dot(M, A[i], W) + 0.5 * norm2(M, A[i]);
    F[i] = first_above(M, A[i], 2.5) + 1;
    double total = window(M, A[i], M / 2, 2), shift = first_above(M, A[i], total / M) + total;
    if (dot(M, W, W) > 4.0) total = -total;
    for (int j = 0; j < M; j++) S[i][j] = total + window(M, A[i], j, 1) + shift;
  }
  scale(M, W, dot(M, W, W));
}
