// A coefficient read from an array before the time loop (a statement of its own, the local kept
// in memory) and a difference written after it: three parts, the time loop time-tiled by
// itself and reading the coefficient the first part stored. A guard clause first: the sizes
// decide it, and the parts are those of the body it guards.
// run: T=0 N=4
// run: T=1 N=3
// run: T=3 N=17
// run: T=8 N=100
// run: T=13 N=259
void parts_coef1d(int T, int N, float coef[2], float A[N], float B[N], float out[N]) {
  if (N < 3) return;
  float c = coef[0] * 0.5f;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = c * (A[i - 1] + A[i + 1]) + (1.0f - 2.0f * c) * A[i];
    for (int i = 1; i < N - 1; i++)
      A[i] = B[i];
  }
  for (int i = 0; i < N; i++)
    out[i] = A[i] - B[i];
}
