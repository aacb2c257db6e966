// Front end: int/long/float/double mixing, literal types (0.2 vs 0.2f, 1e-3, 3L, 2u-free),
// explicit and implicit conversions, float->int truncation, long shape parameter.
// run: N=1 L=0
// run: N=3 L=-5
// run: N=33 L=3000000000
// run: N=1000 L=7
void fe_mixed_types(int N, long L, double D[N], float F[N], int I[N], long G[N]) {
  for (int i = 0; i < N; i++) {
    D[i] = F[i] * 0.2 + I[i] / 3 + L * 1e-3 + 0.1f;
    F[i] = F[i] * 0.2f + (float)I[i] * 0.1 + i / 2;
    G[i] = L * i + I[i] / 2 + 3L * (long)F[i] + (long)(D[i] * 1000.0);
    I[i] = (int)(F[i] * 100.0f) % 7 + (int)(-2.7) + (int)D[i] - i % 4;
  }
}
