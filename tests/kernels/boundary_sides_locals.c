// 2-D stencil whose top and bottom rows are set from the new inner rows through locals of their
// nest (two statements sharing them), the side columns from the old plane.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=3 N=5 M=5
// run: T=4 N=33 M=20
// run: T=6 N=70 M=129
void boundary_sides_locals(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    for (int j = 1; j < M - 1; j++) {
      float v = A[(t + 1) % 2][1][j];
      float w = A[(t + 1) % 2][N - 2][j];
      A[(t + 1) % 2][0][j] = v + 0.5f * w;
      A[(t + 1) % 2][N - 1][j] = w - 0.5f * v;
    }
    for (int i = 0; i < N; i++) {
      A[(t + 1) % 2][i][0] = A[t % 2][i][0] * 0.9f;
      A[(t + 1) % 2][i][M - 1] = A[t % 2][i][M - 1] * 0.9f;
    }
  }
}
