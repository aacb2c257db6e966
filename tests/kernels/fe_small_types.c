#include <stdint.h>
// Front end: char, short and unsigned element types and the fixed-width ones, with C's
// integer promotions (a uint8_t sum wraps only when stored, unsigned arithmetic is modulo
// 2^32, a signed char times a short is an int) and conversions to float.
// run: N=1 M=1
// run: N=5 M=9
// run: N=32 M=64
// run: N=61 M=37
// fill: P=0..255 Q=-128..127 S=-3000..3000 U=0..4000000000 L=-100000..100000
void fe_small_types(int N, int M, unsigned char P[N][M], signed char Q[N][M], short S[N][M],
                    uint32_t U[N][M], int64_t L[N][M], uint16_t H[N][M], float F[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      uint8_t s = (uint8_t)(P[i][j] + Q[i][j]);
      H[i][j] = (uint16_t)(P[i][j] * 300 + S[i][j]);
      U[i][j] = U[i][j] * 2654435761u + (unsigned)S[i][j];
      L[i][j] = L[i][j] * Q[i][j] + (int64_t)U[i][j] / 7;
      F[i][j] = (float)s * 0.5f + (float)(Q[i][j] * S[i][j]) - (float)(U[i][j] / 8u);
      P[i][j] = s;
    }
}
