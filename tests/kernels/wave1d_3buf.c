// 1-D wave equation, second order in time: three buffers rotated through A[(t + 2) % 3].
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=1
// run: T=3 N=4
// run: T=7 N=65
// run: T=12 N=500
void wave1d_3buf(int T, int N, float A[3][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      A[(t + 2) % 3][i] =
          2.0f * A[(t + 1) % 3][i] - A[t % 3][i] +
          0.1f * (A[(t + 1) % 3][i - 1] - 2.0f * A[(t + 1) % 3][i] + A[(t + 1) % 3][i + 1]);
}
