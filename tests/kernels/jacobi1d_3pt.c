// 1-D Jacobi, 3 points, double-buffered through A[t % 2].
// run: T=0 N=5
// run: T=1 N=3
// run: T=3 N=3
// run: T=4 N=1
// run: T=2 N=2
// run: T=5 N=33
// run: T=7 N=129
// run: T=10 N=100000
void jacobi1d_3pt(int T, int N, float A[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      A[(t + 1) % 2][i] = 0.33333f * (A[t % 2][i - 1] + A[t % 2][i] + A[t % 2][i + 1]);
}
