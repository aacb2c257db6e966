// Static locals that are the same in every call: a table of weights (`static const double
// w[3] = {...}`, and one without const that nothing writes) and a static constant, inside the
// function as C code often keeps them. A static that keeps state between calls is refused.
// run: T=0 N=3
// run: T=1 N=4
// run: T=5 N=37
// run: T=9 N=300
void fe_static_locals(int T, int N, double A[N], double B[N]) {
  static const double w[3] = {0.25, 0.5, 0.25};
  static double v[] = {-1.0, 2.0, -1.0};
  static const double half = 0.5;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) {
      double s = 0, d = 0;
      for (int k = -1; k <= 1; k++) {
        s += w[k + 1] * A[i + k];
        d += v[k + 1] * A[i + k];
      }
      B[i] = s + half * 0.125 * d;
    }
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
  }
}
