// 2-D variable-coefficient diffusion in double: per-point coefficient arrays C and W.
// run: T=0 N=3 M=4
// run: T=1 N=3 M=3
// run: T=2 N=1 M=5
// run: T=2 N=4 M=1
// run: T=3 N=7 M=35
// run: T=5 N=70 M=40
// run: T=8 N=130 M=129
void coef2d_double(int T, int N, int M, const double C[N][M], const double W[N][M],
                   double A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] =
            C[i][j] * A[t % 2][i][j] + W[i][j] * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                                  A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
}
