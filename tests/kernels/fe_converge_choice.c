// A solver's residual as C codes often write it, `if (d > err) err = d;` under the guard its
// convergence test puts on the step (a break: jit/ifconv.c makes k = g && d > err): the
// maximum runs in parallel with no term where the guard fails (sched/reduce.c, chosen), and so
// does an fmax one beside it, whose private term the guard wraps too. Early, never, at once.
// fill: A=-1..1 B=-1..1
// run: T=0 N=5 tol=0.1
// run: T=1 N=6 tol=0.1
// run: T=60 N=7 tol=0.01
// run: T=60 N=300 tol=1e-4
// run: T=40 N=3000 tol=1e9
// run: T=30 N=3000 tol=-1
#include <math.h>
void fe_converge_choice(int T, int N, double tol, double A[N], double B[N], double res[2],
                        int steps[1]) {
  int t;
  double err = 0, norm = 0;
  for (t = 0; t < T; t++) {
    err = 0;
    norm = 0;
    for (int i = 1; i < N - 1; i++) B[i] = 0.5 * (A[i - 1] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) {
      double d = fabs(B[i] - A[i]);
      if (d > err) err = d;
      norm = fmax(norm, fabs(B[i]));
      A[i] = B[i];
    }
    if (err < tol) break;
  }
  steps[0] = t;
  res[0] = err;
  res[1] = norm;
}
