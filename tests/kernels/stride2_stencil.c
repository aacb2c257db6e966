// A stencil over every other point (i += 2), the odd points copied in a second loop.
// run: T=0 N=6
// run: T=1 N=3
// run: T=2 N=4
// run: T=3 N=7
// run: T=6 N=64
// run: T=10 N=301
void stride2_stencil(int T, int N, float A[2][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 2; i < N - 2; i += 2)
      A[(t + 1) % 2][i] = 0.5f * A[t % 2][i] + 0.25f * (A[t % 2][i - 2] + A[t % 2][i + 2]);
    for (int i = 1; i < N - 1; i += 2) A[(t + 1) % 2][i] = A[t % 2][i - 1] - A[t % 2][i + 1];
  }
}
