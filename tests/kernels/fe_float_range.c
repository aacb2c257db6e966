// Front end: float literals beyond their type's range are infinities, as C makes them.
// run: N=1
// run: N=7
// run: N=100
void fe_float_range(int N, float A[N], double B[N]) {
  for (int i = 0; i < N; i++) {
    A[i] = A[i] < 0.0f ? -1e39f : 1e39f * (A[i] + 2.0f);
    B[i] = B[i] > 0.5 ? 1e309 : -1e309 * B[i] + A[i];
  }
}
