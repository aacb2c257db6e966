#include <math.h>
// Triangular loops and reductions into array elements: a forward substitution (trisolv),
// a Cholesky-style factorization with sqrt on the diagonal, and a lower-triangular rank-k
// update (syrk) whose inner reduction runs over k into C[i][j]; plus the exact math
// functions (floor, ceil, trunc, round, fmod), bit-identical on every device.
// run: N=1 M=1
// run: N=5 M=3
// run: N=32 M=32
// run: N=35 M=19
void fe_triangular_reduce(int N, int M, double L[N][N], double b[N], double x[N], double A[N][N],
                          double C[N][N], double B[N][M], double E[N][M]) {
  for (int i = 0; i < N; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) x[i] -= L[i][j] * x[j];
    x[i] = x[i] / (L[i][i] + 3.0);
  }
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++) A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++) A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(fabs(A[i][i]) + 1.0);
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      C[i][j] *= 0.5;
      for (int k = 0; k < M; k++) C[i][j] += 1.5 * B[i][k] * B[j][k];
    }
  for (int i = 0; i < N; i++)
    for (int k = 0; k < M; k++)
      E[i][k] = floor(B[i][k] * 7.0) + ceil(B[i][k] * 3.0) - trunc(E[i][k] * 5.0) +
                round(B[i][k] * 2.5) + fmod(E[i][k] * 11.0, B[i][k] + 2.0);
}
