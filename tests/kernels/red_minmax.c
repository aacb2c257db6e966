#include <math.h>
// Minimum and maximum reductions (issue 11): fminf over a vector into an element, fmax of
// each row of a matrix into the caller's hi[i]. fmin and fmax are exact in any order (but
// for the sign of a zero), so the reassociated results equal the C function's; on a GPU the
// float atomics are compare-and-swap loops that keep C's rule for NaN operands.
// run: N=1 M=1
// run: N=7 M=33
// run: N=5 M=2000
// run: N=2 M=70001
// reassociate: terms=M+1 expect=parallel
void red_minmax(int N, int M, const float v[M], const double A[N][M], float lo[1], double hi[N]) {
  for (int j = 0; j < M; j++) lo[0] = fminf(lo[0], v[j]);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) hi[i] = fmax(hi[i], A[i][j]);
}
