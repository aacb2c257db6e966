// Front end: affine if / else if / else in a loop body, with && in conditions.
// run: N=1 M=1
// run: N=3 M=3
// run: N=8 M=5
// run: N=33 M=100
// run: N=256 M=256
void fe_ifelse(int N, int M, const float A[N][M], float B[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      if (i < N / 2)
        B[i][j] = A[i][j] + 1.0f;
      else if (j >= i - N / 2 && i + j > 3)
        B[i][j] = A[i][j] * A[i][j];
      else
        B[i][j] = -A[i][j];
      if (2 * i <= j + 1) {
        B[i][j] = B[i][j] * 0.5f;
      }
      if (i > 0 && j < M - 1) B[i][j] += A[i - 1][j + 1];
    }
}
