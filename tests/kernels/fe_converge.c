// A Jacobi solver that runs until it converges, as solvers are written: a while loop whose
// condition bounds the iterations and tests the largest change of the last one. The loop
// runs to its bound with its body under the test; each size below stops early at some tol.
// iters[0] counts the iterations that ran, so a body run once too often shows.
// fill: u=-1..1 un=-1..1 iters=0..0
// run: maxit=0 N=3 M=3 tol=0.5
// run: maxit=5 N=3 M=3 tol=0.5
// run: maxit=1 N=4 M=5 tol=0.5
// run: maxit=30 N=9 M=17 tol=0.2
// run: maxit=30 N=9 M=17 tol=0.001
// run: maxit=200 N=33 M=40 tol=0.1
#include <math.h>

void fe_converge(int maxit, int N, int M, double tol, double u[N][M], double un[N][M],
                 float *iters) {
  int iter = 0;
  double diff = tol + 1.0;
  while (diff > tol && iter < maxit) {
    diff = 0.0;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        un[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        diff = fmax(diff, fabs(un[i][j] - u[i][j]));
      }
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) u[i][j] = un[i][j];
    *iters += 1.0f;
    iter++;
  }
}
