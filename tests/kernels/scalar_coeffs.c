// Scalar coefficients passed at run time: float alpha, double beta.
// run: T=0 N=4 M=4 alpha=0.5 beta=0.25
// run: T=1 N=3 M=3
// run: T=2 N=33 M=17 alpha=-1.5 beta=3
// run: T=5 N=100 M=129 alpha=0.1 beta=0.3
// run: T=10 N=256 M=256 alpha=0.2 beta=0.2
void scalar_coeffs(int T, int N, int M, float alpha, double beta, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = alpha * A[t % 2][i][j] +
                               beta * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j]) +
                               (1.0f - alpha) * 0.5f * (A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
}
