// Several statements in one space loop writing different arrays from one input buffer: the
// gradient and the smoothed field of a 2-D grid, the field double-buffered.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=2 M=9
// run: T=3 N=17 M=5
// run: T=4 N=50 M=64
void multi_out_stencil(int T, int N, int M, float A[2][N][M], float GX[N][M], float GY[N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        GX[i][j] = A[t % 2][i][j + 1] - A[t % 2][i][j - 1];
        GY[i][j] = A[t % 2][i + 1][j] - A[t % 2][i - 1][j];
        A[(t + 1) % 2][i][j] = A[t % 2][i][j] - 0.1f * (GX[i][j] * GX[i][j] + GY[i][j] * GY[i][j]);
      }
}
