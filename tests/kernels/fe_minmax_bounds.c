// Front end: min/max loop bounds written with ?:, a band around the diagonal and a
// triangular nest.
// run: N=1 M=1
// run: N=3 M=5
// run: N=9 M=4
// run: N=33 M=100
// run: N=129 M=65
// run: N=256 M=256
void fe_minmax_bounds(int N, int M, const float A[N][M], float B[N][M], float C[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = (i - 2 > 0 ? i - 2 : 0); j < (i + 4 < M ? i + 4 : M); j++)
      B[i][j] = A[i][j] * 2.0f + (float)(i - j);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < (i + 1 < M ? i + 1 : M); j++)
      C[i][j] = A[i][j] + (j > 0 ? C[i][j - 1] : 0.0f);
  for (int i = (N > 4 ? N - 4 : 0); i < N; i++)
    for (int j = (M < 3 ? M : 3); j < M - (M > 2 ? 2 : M); j++) B[i][j] = B[i][j] - A[i][j];
}
