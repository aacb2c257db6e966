// Front end: iterators declared before the loops (int i; for (i = 0; ...)), reused by two
// nests, with a downward time-skewed read.
// run: T=0 N=5
// run: T=1 N=3
// run: T=3 N=33
// run: T=5 N=129
// run: T=10 N=256
void fe_decl_outside(int T, int N, float A[2][N][N]) {
  int t, i, j;
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < N - 1; j++)
        A[(t + 1) % 2][i][j] =
            0.5f * A[t % 2][i][j] + 0.25f * (A[t % 2][i - 1][j + 1] + A[t % 2][i + 1][j - 1]);
    for (i = 0; i < N; i += 2) A[(t + 1) % 2][i][0] = A[t % 2][i][0] + 1.0f;
  }
}
