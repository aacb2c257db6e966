// Maxima and minima written as choices, `if (d > err) err = d;` (jit/ifconv.c makes it
// err = k ? d : err with k = d > err), run in parallel on the GPU (sched/reduce.c, chosen): the
// element is replaced only where the test holds, so NaN terms (sqrt of a negative) are ignored,
// a -0.0 start survives +0.0 terms (a tie), and >= takes the tie. Terms that may be -0.0 (a plain
// difference) and an index saved beside the maximum keep the C order.
// fill: A=-1..1 B=-1..1
// run: N=1
// run: N=7
// run: N=300
// run: N=5000
#include <math.h>
void fe_max_choice(int N, const double A[N], double B[N], float F[N], double out[8],
                   float fout[2], int at[1]) {
  double big = 0, tied = -0.0, small = 1e300, nan_max = 0, diff = -1, same = -0.0;
  float fmaxv = 0, fminv = 3;
  int where = -1;
  for (int i = 0; i < N; i++) {
    B[i] = B[i] * 0.5 + A[i];
    double d = fabs(B[i] - A[i]);
    if (d > big) big = d;
    if (fabs(A[i] * 0) > tied) tied = fabs(A[i] * 0);
    if (same <= fabs(A[i] * 0)) same = fabs(A[i] * 0);
    small = d * d < small ? d * d : small;
    double r = fabs(sqrt(A[i]));
    if (r > nan_max) nan_max = r;
    float f = fabsf(F[i]);
    if (f >= fmaxv) fmaxv = f;
    if (fminv > f) fminv = f;
  }
  for (int i = 0; i < N; i++) { /* these two keep the C order */
    double d = fabs(B[i] - A[i]), s = B[i] - A[i];
    if (s > diff) diff = s;
    if (d > out[7]) {
      out[7] = d;
      where = i;
    }
  }
  out[0] = big;
  out[1] = tied;
  out[2] = small;
  out[3] = nan_max;
  out[4] = diff;
  out[5] = same;
  fout[0] = fmaxv;
  fout[1] = fminv;
  at[0] = where;
}
