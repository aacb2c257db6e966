#include <stdint.h>
// Front end: pragmas (scop/endscop and an unknown one, ignored), typedefs of element types
// (one of char, as PolyBench's nussinov writes its bases), C89 declarations at the top of
// blocks, and a triangular nest (j from i) that reads the typedef'd char array.
// run: N=1 M=1
// run: N=7 M=5
// run: N=33 M=31
// run: N=64 M=32
// fill: B=0..3
typedef double DATA_TYPE;
typedef char base;
typedef DATA_TYPE row_t;
void fe_pragma_typedef(int N, int M, base B[N], DATA_TYPE A[N][N], row_t C[N][M]) {
  int i, j, k;
#pragma scop
#pragma omp parallel for
  for (i = 0; i < N; i++)
    for (j = i; j < N; j++) {
      DATA_TYPE w;
      int match;
      match = B[i] + B[j] == 3;
      w = match ? 1.0 : 0.25;
      A[i][j] = A[i][j] * w + (DATA_TYPE)(j - i);
    }
  for (i = 0; i < N; i++) {
    row_t acc;
    for (k = 0; k < M; k++) {
      acc = C[i][k] * 0.5;
      C[i][k] = acc + A[i][i];
    }
  }
#pragma endscop
}
