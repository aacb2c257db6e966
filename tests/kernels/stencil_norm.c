// A reduction mixed with a stencil: each step records the sum of squares of the update.
// run: T=0 N=4
// run: T=1 N=3
// run: T=2 N=1
// run: T=3 N=17
// run: T=6 N=300
void stencil_norm(int T, int N, float A[2][N], double res[T + 1]) {
  for (int t = 0; t < T; t++) {
    double s = 0.0;
    for (int i = 1; i < N - 1; i++) {
      float v = 0.5f * (A[t % 2][i - 1] + A[t % 2][i + 1]);
      s += (double)(v - A[t % 2][i]) * (double)(v - A[t % 2][i]);
      A[(t + 1) % 2][i] = v;
    }
    res[t] = s;
  }
}
