// A 1-D smoothing whose neighbours are clamped to the array (clamp-to-edge, as image code
// writes it), with a weight that differs at the two ends: tests of the position in the body,
// which most threads decide the same way (astgen/unswitch.c).
// run: T=0 N=2
// run: T=1 N=1
// run: T=2 N=2
// run: T=5 N=33
// run: T=4 N=1000
// run: T=3 N=5000
void clamp_edges1d(int T, int N, double u[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 0; i < N; i++) {
      int l = i > 0 ? i - 1 : 0, r = i < N - 1 ? i + 1 : N - 1;
      int ll = i > 1 ? i - 2 : 0, rr = i < N - 2 ? i + 2 : N - 1;
      double w = (i == 0 || i == N - 1) ? 0.5 : 0.25;
      u[(t + 1) % 2][i] = (1 - 2 * w) * u[t % 2][i] + w * (u[t % 2][l] + u[t % 2][r]) +
                          0.125 * (u[t % 2][ll] - u[t % 2][rr]);
    }
}
