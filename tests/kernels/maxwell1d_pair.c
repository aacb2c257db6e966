// 1-D Maxwell (Yee) update of two double buffers in one loop body: E from H at i - 1, H from E
// at i + 1. Each array's staged box differs from the other's, so a tile's flow-in copy must read
// each array's own accesses: with the planes dropped both arrays' accesses were one unnamed
// space, and E's copy took H's reads too (out of its box; sched/stage.c).
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=4
// run: T=3 N=16
// run: T=8 N=77
// run: T=40 N=3000
void maxwell1d_pair(int T, int N, double E[2][N], double H[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      E[(t + 1) % 2][i] = E[t % 2][i] + 0.5 * (H[t % 2][i] - H[t % 2][i - 1]);
      H[(t + 1) % 2][i] = H[t % 2][i] + 0.5 * (E[t % 2][i + 1] - E[t % 2][i]);
    }
}
