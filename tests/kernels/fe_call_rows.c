// A 2-D step called on the rows of a double buffer (A[t % 2]), declared by a prototype and
// defined after the kernel, its parameters variably modified (the reference writes their
// extents as constants).
// run: T=0 N=3 M=4
// run: T=1 N=3 M=3
// run: T=3 N=20 M=33
// run: T=6 N=64 M=70
void heat(int n, int m, float c, const float in[n][m], float out[n][m]);

void fe_call_rows(int T, int N, int M, float c, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    heat(N, M, c * 0.5f, A[t % 2], A[(t + 1) % 2]);
}

void heat(int n, int m, float c, const float in[n][m], float out[n][m]) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = in[i][j] + c * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1] -
                                  4.0f * in[i][j]);
}
