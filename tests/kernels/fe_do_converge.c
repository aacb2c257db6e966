// A do loop that counts with a counter set earlier than the statement before it (a
// declaration of the residual comes between: jit/parse.c, counter_start takes the only
// integer local set so), ending on a residual or the count: early, at the count, at once.
// fill: u=-1..1 un=-1..1
// run: N=3 maxit=1 tol=0.001
// run: N=40 maxit=50 tol=0.001
// run: N=40 maxit=50 tol=0.1
// run: N=300 maxit=20 tol=1e-12
#include <math.h>
void fe_do_converge(int N, int maxit, double tol, double u[N], double un[N], int its[1]) {
  int it = 0;
  double diff;
  do {
    diff = 0;
    for (int i = 1; i < N - 1; i++) {
      un[i] = 0.5 * (u[i - 1] + u[i + 1]);
      diff = fmax(diff, fabs(un[i] - u[i]));
    }
    for (int i = 1; i < N - 1; i++) u[i] = un[i];
    it++;
  } while (diff > tol && it < maxit);
  its[0] = it;
}
