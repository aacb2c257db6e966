// Helpers as C code writes them: early returns (with and without braces, else if), locals
// initialized once, a division only where its guard lets C evaluate it.
// fill: C=-50..50
// run: T=0 N=3
// run: T=2 N=10
// run: T=9 N=333
static inline float clampf(float x, float lo, float hi) {
  if (x < lo) return lo;
  if (x > hi) {
    return hi;
  }
  return x;
}
static double sgn(double v) {
  if (v > 0) return 1.0;
  else if (v < 0) return -1.0;
  else return 0.0;
}
static inline float lerp(float a, float b, float t) {
  const float d = b - a;
  float s = d * t, u = s;
  return a + u;
}
static int idiv(int a, int b) {
  if (b == 0) return 0;
  return a / b;
}
void fe_helper_bodies(int T, int N, float A[2][N], int C[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      A[(t + 1) % 2][i] = clampf(lerp(A[t % 2][i - 1], A[t % 2][i + 1], 0.25f), -0.5f, 0.5f) +
                          0.125f * (float)sgn(A[t % 2][i] - 0.5);
      C[i] = idiv(C[i] * 3, i % 3) + t;
    }
}
