// Steps of 3 and inclusive bounds (i <= N, arrays of N + 1): three interleaved sub-grids,
// each a stencil over its own points.
// run: T=0 N=4
// run: T=1 N=0
// run: T=1 N=2
// run: T=2 N=6
// run: T=3 N=20
// run: T=7 N=301
void step3_le_bound(int T, int N, float A[2][N + 1]) {
  for (int t = 0; t < T; t++)
    for (int r = 0; r < 3; r++)
      for (int i = 3 + r; i <= N - 3; i += 3)
        A[(t + 1) % 2][i] = 0.5f * A[t % 2][i] + 0.25f * (A[t % 2][i - 3] + A[t % 2][i + 3]);
}
