#include <math.h>
// Every math function of the subset, on float and double.
// run: N=1
// run: N=3
// run: N=33
// run: N=1000
void math_funcs(int N, const float X[N], const double Y[N], float F[N], double G[N]) {
  for (int i = 0; i < N; i++) {
    F[i] = sqrtf(fabsf(X[i])) + fminf(X[i], 0.25f) - fmaxf(X[i], -0.5f);
    G[i] = sqrt(fabs(Y[i]) + 1.0) * fmin(Y[i], (double)X[i]) + fmax(Y[i] * 3.0, -1.0);
  }
}
