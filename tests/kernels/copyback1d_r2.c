// 1-D, radius 2, two arrays with a copy-back loop, and boundary statements in the time loop.
// run: T=0 N=6
// run: T=1 N=2
// run: T=2 N=2
// run: T=3 N=5
// run: T=4 N=6
// run: T=9 N=101
// run: T=15 N=1000
void copyback1d_r2(int T, int N, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    A[0] = 0.5f * A[1];
    for (int i = 2; i < N - 2; i++)
      B[i] = 0.1f * A[i - 2] + 0.2f * A[i - 1] + 0.4f * A[i] + 0.2f * A[i + 1] + 0.1f * A[i + 2];
    for (int i = 2; i < N - 2; i++) A[i] = B[i];
    A[N - 1] = A[N - 2] + 1.0f;
  }
}
