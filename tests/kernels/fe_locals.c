// Front end: local scalars of every type declared inside loop bodies, some initialised from
// other locals, one assigned after its declaration, used only in their statement group.
// run: T=0 N=4 M=5
// run: T=1 N=3 M=3
// run: T=3 N=33 M=17
// run: T=6 N=100 M=129
// run: T=10 N=256 M=256
void fe_locals(int T, int N, int M, float A[2][N][M], double D[N][M], int C[N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        float c = A[t % 2][i][j];
        float ns = A[t % 2][i - 1][j] + A[t % 2][i + 1][j];
        float ew = A[t % 2][i][j - 1] + A[t % 2][i][j + 1];
        double w = 0.125;
        float r;
        r = c + (float)(w * (double)(ns + ew - 4.0f * c));
        int k = C[i][j] + i - j;
        long big = (long)k * 100000L;
        A[(t + 1) % 2][i][j] = r;
        C[i][j] = (int)(big % 97L);
      }
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++) {
        double s = D[i][j] * 0.5;
        D[i][j] = s + (double)A[(t + 1) % 2][i][j];
      }
  }
}
