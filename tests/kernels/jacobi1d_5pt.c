// 1-D Jacobi, 5 points (radius 2).
// run: T=0 N=9
// run: T=1 N=5
// run: T=3 N=5
// run: T=2 N=4
// run: T=6 N=33
// run: T=9 N=100
// run: T=10 N=65536
void jacobi1d_5pt(int T, int N, float A[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 2; i < N - 2; i++)
      A[(t + 1) % 2][i] = 0.1f * A[t % 2][i - 2] + 0.2f * A[t % 2][i - 1] + 0.4f * A[t % 2][i] +
                          0.2f * A[t % 2][i + 1] + 0.1f * A[t % 2][i + 2];
}
