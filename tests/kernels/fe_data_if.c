// Ifs on data in a time-tiled stencil: an upwind difference chosen by the sign of the
// velocity, a masked update with an else, a window's maximum kept by an if, a chain of else ifs
// into a local declared without an initializer.
// fill: mask=0..1
// run: T=0 N=5
// run: T=1 N=6
// run: T=7 N=100
// run: T=24 N=1000
void fe_data_if(int T, int N, float A[2][N], const int mask[N], const float u[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 2; i < N - 2; i++) {
      float f, m = A[t % 2][i];
      if (u[i] > 0.5f)
        f = (u[i] - 0.5f) * (A[t % 2][i] - A[t % 2][i - 1]);
      else
        f = (u[i] - 0.5f) * (A[t % 2][i + 1] - A[t % 2][i]);
      for (int k = -2; k <= 2; k++)
        if (A[t % 2][i + k] > m) m = A[t % 2][i + k];
      float s;
      if (m > 0.9f) s = 0.25f * m;
      else if (m < 0.1f) s = 0.1f;
      else s = 0.125f * (m + A[t % 2][i]);
      if (mask[i] && i > 3) {
        A[(t + 1) % 2][i] = A[t % 2][i] - 0.1f * f + s;
      } else {
        A[(t + 1) % 2][i] = A[t % 2][i] + s;
      }
    }
}
