#include <math.h>
// 2-D gradient stencil (PPCG test set): uses sqrtf and a division.
// run: T=0 N=3 M=4
// run: T=1 N=3 M=3
// run: T=2 N=5 M=3
// run: T=3 N=33 M=20
// run: T=5 N=129 M=100
// run: T=10 N=256 M=256
void gradient2d(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        float c = A[t % 2][i][j];
        A[(t + 1) % 2][i][j] =
            c + 1.0f / (4.0f * sqrtf(0.0001f + (c - A[t % 2][i - 1][j]) * (c - A[t % 2][i - 1][j]) +
                                     (c - A[t % 2][i + 1][j]) * (c - A[t % 2][i + 1][j]) +
                                     (c - A[t % 2][i][j - 1]) * (c - A[t % 2][i][j - 1]) +
                                     (c - A[t % 2][i][j + 1]) * (c - A[t % 2][i][j + 1])));
      }
}
