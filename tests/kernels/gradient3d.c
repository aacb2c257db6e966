#include <math.h>
// 3-D gradient stencil (the thesis's "grad 3D": 7 loads, about 20 flops): sqrtf and a division.
// run: T=0 N=3 M=3 K=4
// run: T=1 N=3 M=3 K=3
// run: T=2 N=4 M=3 K=5
// run: T=3 N=9 M=17 K=33
// run: T=5 N=20 M=20 K=40
void gradient3d(int T, int N, int M, int K, float A[2][N][M][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        for (int k = 1; k < K - 1; k++) {
          float c = A[t % 2][i][j][k];
          float di = c - A[t % 2][i - 1][j][k], ei = c - A[t % 2][i + 1][j][k];
          float dj = c - A[t % 2][i][j - 1][k], ej = c - A[t % 2][i][j + 1][k];
          float dk = c - A[t % 2][i][j][k - 1], ek = c - A[t % 2][i][j][k + 1];
          A[(t + 1) % 2][i][j][k] =
              c + 1.0f / (4.0f * sqrtf(0.0001f + di * di + ei * ei + dj * dj + ej * ej + dk * dk +
                                       ek * ek));
        }
}
