// What C code written for GCC takes from the standard headers: FLT_MAX, DBL_EPSILON, INT_MAX,
// INT32_MIN and M_PI once <float.h>, <limits.h>, <stdint.h> and <math.h> are included
// (jit/macro.c, standard macros; the reference gets the same definitions), INFINITY and
// HUGE_VAL as the start of a minimum, isnan, isinf and isfinite as tests, __restrict__ and
// __inline__, and register locals.
// fill: A=-3..3 C=-3..3
// run: N=1
// run: N=5
// run: N=257
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
static __inline__ double wave(double x) { return sqrt(M_PI * fabs(x)) + M_SQRT1_2; }
void fe_std_macros(int N, const double *__restrict__ A, double *__restrict B, const int *C,
                   int *D, float *E, double *G) {
  register int i;
  float top = -FLT_MAX;
  int low = INT_MAX, high = INT32_MIN, nans = 0, infs = 0, finite = 0;
  double least = INFINITY, most = -HUGE_VAL;
  for (i = 0; i < N; i++) {
    B[i] = fabs(A[i]) < DBL_EPSILON * 1e10 ? 0 : wave(A[i]);
    top = fmaxf(top, (float)A[i]);
    low = C[i] < low ? C[i] : low;
    high = C[i] > high ? C[i] : high;
    double q = sqrt(A[i]) / (double)C[i];
    if (isnan(q)) nans++;
    if (isinf(q)) infs++;
    if (isfinite(q)) finite++;
    if (fabs(q) < least) least = fabs(q);
    if (fabs(A[i]) > most) most = fabs(A[i]);
  }
  D[0] = low;
  D[1] = high;
  D[2] = nans;
  D[3] = infs;
  D[4] = finite;
  E[0] = top;
  E[1] = FLT_MAX;
  E[2] = INFINITY;
  G[0] = least;
  G[1] = most;
}
