#include <stdint.h>
// A stencil gated by a char mask array, float values, an int counter array updated too.
// fill: M=0..1 Cnt=0..3
// run: T=0 N=3 K=3
// run: T=1 N=3 K=3
// run: T=2 N=1 K=9
// run: T=3 N=10 K=12
// run: T=4 N=33 K=65
void mixed_char_mask(int T, int N, int K, const unsigned char M[N][K], int Cnt[N][K],
                     float A[2][N][K]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < K - 1; j++) {
        A[(t + 1) % 2][i][j] = M[i][j] ? 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                                  A[t % 2][i][j - 1] + A[t % 2][i][j + 1])
                                       : A[t % 2][i][j];
        Cnt[i][j] += M[i][j] + (A[(t + 1) % 2][i][j] > 0.0f);
      }
}
