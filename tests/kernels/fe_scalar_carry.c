#include <math.h>
// Front end: local scalars that carry values across loops and ifs, as pet models them
// (zero-dimensional arrays): a sum reduced into a scalar then used (symm's temp2), a norm
// (gramschmidt's nrm, with sqrt), a running maximum (a ?: on the data) and a value set under
// an affine if, both carried across the whole nest, and values carried from one iteration of
// an outer loop to the next (durbin's alpha and beta).
// run: N=1 M=1
// run: N=3 M=5
// run: N=32 M=32
// run: N=45 M=33
void fe_scalar_carry(int N, int M, double A[N][M], double Q[N][M], double R[N], double X[N],
                     double mx[1]) {
  double alpha = 0.5, beta = 1.0;
  for (int k = 0; k < N; k++) {
    double nrm = 0.0;
    for (int i = 0; i < M; i++) nrm += A[k][i] * A[k][i];
    R[k] = sqrt(nrm);
    for (int i = 0; i < M; i++) Q[k][i] = A[k][i] / (R[k] + 1.0);
    beta = (1.0 - alpha * alpha) * beta;
    alpha = -(R[k] + alpha) / (beta + 2.0);
    X[k] = alpha;
  }
  double best = -1.0e30, last = 0.25;
  for (int k = 0; k < N; k++)
    for (int i = 0; i < M; i++) {
      double temp2 = 0.0;
      for (int j = 0; j < i; j++) temp2 += Q[k][j] * A[k][j];
      best = temp2 > best ? temp2 : best;
      if (i % 3 == 1) last = temp2 - last;
      A[k][i] = A[k][i] * 0.75 + temp2 + last;
    }
  mx[0] = best + last;
}
