// 2-D Jacobi, 5 points, the blueprint's form: double buffer through A[t % 2]. At the last size
// split tiling unrolls its partial tiles' code too (a quarter to a third of its tiles partial).
// run: T=0 N=5 M=7
// run: T=1 N=3 M=3
// run: T=3 N=3 M=3
// run: T=2 N=1 M=6
// run: T=2 N=3 M=33
// run: T=3 N=33 M=17
// run: T=5 N=100 M=129
// run: T=10 N=256 M=256
// run: T=17 N=200 M=600
void jacobi2d(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.2f * (A[t % 2][i][j] + A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                       A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
}
