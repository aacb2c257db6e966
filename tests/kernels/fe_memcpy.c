// Copy-back with memcpy, as C codes write it: whole arrays and halves of a double buffer,
// counts from sizeof of a type, of a row and of an element; each copy is a loop nest (the
// sizes decide its guard), so the kernel keeps its stencil form and time-tiles.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=3 N=17 M=9
// run: T=5 N=40 M=33
#include <string.h>

void fe_memcpy(int T, int N, int M, float A[N][M], float B[N][M], double C[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
        C[1][i][j] = 0.5 * (C[0][i][j - 1] + C[0][i][j + 1]) + 0.25 * B[i][j];
      }
    memcpy(A, B, sizeof(float) * N * M);
    memmove(C[0], C[1], sizeof C[0]);
  }
}
