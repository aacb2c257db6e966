// 1-D Jacobi, 7 points (radius 3), double precision.
// run: T=0 N=10
// run: T=1 N=7
// run: T=4 N=7
// run: T=3 N=6
// run: T=5 N=33
// run: T=10 N=129
// run: T=10 N=50000
void jacobi1d_7pt(int T, int N, double A[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 3; i < N - 3; i++)
      A[(t + 1) % 2][i] = (A[t % 2][i - 3] + A[t % 2][i - 2] + A[t % 2][i - 1] + A[t % 2][i] +
                           A[t % 2][i + 1] + A[t % 2][i + 2] + A[t % 2][i + 3]) /
                          7.0;
}
