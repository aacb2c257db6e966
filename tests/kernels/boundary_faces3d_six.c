// 3-D heat whose six faces copy their inner neighbours after each step, the i, j and k faces in
// nests of their own: per step the faces share one launch over a plane of threads (sched/gpu.c).
// run: T=0 N=3 M=3 L=3
// run: T=1 N=3 M=4 L=5
// run: T=2 N=4 M=3 L=3
// run: T=3 N=9 M=17 L=33
// run: T=4 N=21 M=19 L=40
// run: T=2 N=40 M=5 L=70
void boundary_faces3d_six(int T, int N, int M, int L, float A[2][N][M][L]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        for (int k = 1; k < L - 1; k++)
          A[(t + 1) % 2][i][j][k] =
              0.4f * A[t % 2][i][j][k] +
              0.1f * (A[t % 2][i - 1][j][k] + A[t % 2][i + 1][j][k] + A[t % 2][i][j - 1][k] +
                      A[t % 2][i][j + 1][k] + A[t % 2][i][j][k - 1] + A[t % 2][i][j][k + 1]);
    for (int j = 1; j < M - 1; j++)
      for (int k = 1; k < L - 1; k++) {
        A[(t + 1) % 2][0][j][k] = A[(t + 1) % 2][1][j][k];
        A[(t + 1) % 2][N - 1][j][k] = A[(t + 1) % 2][N - 2][j][k];
      }
    for (int i = 1; i < N - 1; i++)
      for (int k = 1; k < L - 1; k++) {
        A[(t + 1) % 2][i][0][k] = A[(t + 1) % 2][i][1][k];
        A[(t + 1) % 2][i][M - 1][k] = A[(t + 1) % 2][i][M - 2][k];
      }
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        A[(t + 1) % 2][i][j][0] = A[(t + 1) % 2][i][j][1];
        A[(t + 1) % 2][i][j][L - 1] = A[(t + 1) % 2][i][j][L - 2];
      }
  }
}
