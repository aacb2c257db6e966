// Front end: affine conditions with equality and modulo (checkerboard, diagonal).
// run: T=0 N=4 M=4
// run: T=1 N=3 M=3
// run: T=2 N=33 M=17
// run: T=4 N=100 M=129
// run: T=10 N=200 M=200
void fe_if_eq(int T, int N, int M, float A[N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        if ((i + j + t) % 2 == 0)
          A[i][j] = 0.25f * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
        if (i == j) A[i][j] = A[i][j] * 0.5f;
      }
}
