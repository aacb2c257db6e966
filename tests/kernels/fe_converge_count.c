// A solver that reports how many iterations ran through its counter, read after the loop
// (jit/parse.c, revive_counter): a do loop stepping by 2 from a counter set by an assignment,
// until the largest change is small. The counter is set before the loop and to its next value
// at the end of each iteration the convergence test lets run, so it ends as C leaves it, at the
// bound or where the test stops the loop.
// fill: u=-1..1 un=-1..1 count=0..0
// run: maxit=0 N=3 tol=0.5
// run: maxit=1 N=4 tol=0.5
// run: maxit=9 N=5 tol=0.5
// run: maxit=40 N=17 tol=0.2
// run: maxit=40 N=17 tol=0.001
// run: maxit=400 N=60 tol=0.05
#include <math.h>

void fe_converge_count(int maxit, int N, double tol, double u[N], double un[N], long count[2]) {
  long k;
  double diff = tol + 1.0;
  k = 1;
  do {
    diff = 0.0;
    for (int i = 1; i < N - 1; i++) {
      un[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
      diff = fmax(diff, fabs(un[i] - u[i]));
    }
    for (int i = 1; i < N - 1; i++) u[i] = un[i];
    k += 2;
  } while (k <= 2 * maxit && diff > tol);
  count[0] = k;
  count[1] = (k - 1) / 2;
}
