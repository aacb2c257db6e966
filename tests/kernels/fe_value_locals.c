#include <math.h>
// Front end: locals that only name a value, replaced by their initializers (jit/constants.c):
// const int bounds (lo, hi) from the shape, a float coefficient declared before the time loop
// without const, a const double from a scalar parameter, an index derived from the iterator
// (im, ip), a long one from another such local. Kept as locals: one assigned again (w), one
// from a call (s). The nest stays a stencil and time-tiles.
// run: T=0 N=6
// run: T=1 N=3
// run: T=2 N=4
// run: T=5 N=41
// run: T=12 N=300
void fe_value_locals(int T, int N, double alpha, float A[2][N], double B[N]) {
  const int lo = 1;
  const int hi = N - lo;
  float c = 0.25f;
  const double a2 = alpha * 0.5;
  for (int t = 0; t < T; t++) {
    for (int i = lo; i < hi; i++) {
      int im = i - 1, ip = i + lo;
      const long far = (long)ip;
      A[(t + 1) % 2][i] = c * A[t % 2][im] + (1.0f - 2.0f * c) * A[t % 2][i] + c * A[t % 2][far];
    }
    for (int i = 0; i < N; i++) {
      double w = a2;
      double s = sqrt((double)i);
      w = w * 2.0;
      B[i] = B[i] * w + s * (double)A[(t + 1) % 2][i];
    }
  }
}
