// memcpy at addresses, as C codes write the copy-back: &u[0][0] with the whole array's bytes,
// the interior rows from &u[1][0], a 1-D interior from u + 1 (pointer parameters), and a copy
// between arrays of different shapes at different offsets (the source's subscripts from the
// row-major position: jit/parse.c, flat_copy). The stencil form stays: the time loop tiles.
// fill: A=-1..1 B=-1..1 P=-1..1 Q=-1..1 F=-1..1
// run: T=0 N=3
// run: T=1 N=3
// run: T=3 N=4
// run: T=5 N=37
// run: T=4 N=130
#include <string.h>
void fe_memcpy_address(int T, int N, double A[N][N], double B[N][N], double *P, double *Q,
                       float F[N * N + 3], float G[N][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    memcpy(&A[1][0], &B[1][0], (N - 2) * N * sizeof(double));
    for (int i = 1; i < N - 1; i++) Q[i] = 0.5 * (P[i - 1] + P[i + 1]) + A[i][i];
    memcpy(P + 1, Q + 1, sizeof(double) * (N - 2));
  }
  memcpy(&B[0][0], &A[0][0], sizeof(double) * N * N);
  memcpy(&G[0][1], F + 2, (N * N - 1) * sizeof(float));
}
