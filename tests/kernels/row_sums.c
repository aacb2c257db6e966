#include <math.h>
// Reductions into array elements (issue 11): each row's float sum and running maximum with
// the reduction loop inside, each column's sum with it outside. Only the loop over the
// outputs is parallel (isl's scheduler brings the columns' loop out); every accumulation
// runs in one thread in the C order, so the float roundings match the C function bit for
// bit. Odd sizes and multiples of the block shapes.
// run: N=1 M=1
// run: N=3 M=5
// run: N=33 M=97
// run: N=64 M=128
// run: N=129 M=257
// reassociate: terms=N+M+1
void row_sums(int N, int M, const float A[N][M], float rows[N], float peak[N], float cols[M]) {
  for (int i = 0; i < N; i++) {
    rows[i] = 0.0f;
    peak[i] = A[i][0];
    for (int j = 0; j < M; j++) {
      rows[i] += A[i][j];
      peak[i] = fmaxf(peak[i], A[i][j]);
    }
  }
  for (int j = 0; j < M; j++) cols[j] = 0.0f;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) cols[j] += A[i][j];
}
