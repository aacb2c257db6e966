// 2-D Laplacian: one sweep from a read-only input into an output (no time loop).
// run: N=3 M=3
// run: N=2 M=9
// run: N=5 M=4
// run: N=33 M=100
// run: N=129 M=129
// run: N=256 M=256
void laplacian2d(int N, int M, const float in[N][M], float out[N][M]) {
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < M - 1; j++)
      out[i][j] = in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1] - 4.0f * in[i][j];
}
