#include <math.h>
// A stencil and a running maximum of the change in one nest (fmax reduction, fabs).
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=3 N=1 M=1
// run: T=4 N=20 M=9
// run: T=5 N=64 M=70
void maxabs_stencil(int T, int N, int M, double A[2][N][M], double D[T + 1]) {
  for (int t = 0; t < T; t++) {
    D[t] = 0.0;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        A[(t + 1) % 2][i][j] = 0.25 * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                       A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
        D[t] = fmax(D[t], fabs(A[(t + 1) % 2][i][j] - A[t % 2][i][j]));
      }
  }
}
