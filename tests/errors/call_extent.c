// error: 8:18: dimension 2 of parameter 'in' of 'step' is not the extent 'A' has there: pass arrays of the shape the function declares
// status: unsupported
static void step(int n, int m, const float in[n][m], float out[n][m]) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 0; j < m; j++) out[i][j] = in[i - 1][j];
}
void k(int N, int M, float A[N][M], float B[N][M]) {
  step(N, M - 1, A, B);
}
