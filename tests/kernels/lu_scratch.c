// Doolittle LU factorisation in place, then the forward solve, with every partial sum kept
// in a scratch cell s[0] (the shape a scalar accumulator takes once modeled as an array):
// each step reads and writes s[0], so nothing is parallel and the C order is the schedule.
// At large sizes isl's scheduler would spend minutes on this nest (its simplex grows big
// numbers); the compile stops it at its time budget and says so. The divisor stays away
// from zero so that random data stays finite.
// run: N=1
// run: N=2
// run: N=17
// run: N=32
// run: N=33
void lu_scratch(int N, double A[N][N], const double b[N], double y[N], double s[1]) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      s[0] = A[i][j];
      for (int k = 0; k < j; k++) s[0] -= A[i][k] * A[k][j];
      A[i][j] = s[0] / (2.0 + A[j][j] * A[j][j]);
    }
    for (int j = i; j < N; j++) {
      s[0] = A[i][j];
      for (int k = 0; k < i; k++) s[0] -= A[i][k] * A[k][j];
      A[i][j] = s[0];
    }
  }
  for (int i = 0; i < N; i++) {
    s[0] = b[i];
    for (int j = 0; j < i; j++) s[0] -= A[i][j] * y[j];
    y[i] = s[0];
  }
}
