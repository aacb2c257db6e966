// What C code written for GCC takes from the standard headers: FLT_MAX, DBL_EPSILON, INT_MAX,
// INT32_MIN and M_PI once <float.h>, <limits.h>, <stdint.h> and <math.h> are included
// (jit/macro.c, standard macros; the reference gets the same definitions), __restrict__ and
// __inline__, and register locals.
// fill: A=-3..3 C=-1000..1000
// run: N=1
// run: N=5
// run: N=257
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
static __inline__ double wave(double x) { return sqrt(M_PI * fabs(x)) + M_SQRT1_2; }
void fe_std_macros(int N, const double *__restrict__ A, double *__restrict B, const int *C,
                   int *D, float *E) {
  register int i;
  float top = -FLT_MAX;
  int low = INT_MAX, high = INT32_MIN;
  for (i = 0; i < N; i++) {
    B[i] = fabs(A[i]) < DBL_EPSILON * 1e10 ? 0 : wave(A[i]);
    top = fmaxf(top, (float)A[i]);
    low = C[i] < low ? C[i] : low;
    high = C[i] > high ? C[i] : high;
  }
  D[0] = low;
  D[1] = high;
  E[0] = top;
  E[1] = FLT_MAX;
}
