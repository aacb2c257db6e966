// Affine ifs over array elements beside a local the nest computes: each assignment is kept
// under its conditions, in order (a branch reads the element it has just written, which the
// other computes from the local), so the nest stays one statement and time-tiles.
// run: T=0 N=4 M=4
// run: T=1 N=3 M=5
// run: T=3 N=12 M=9
// run: T=5 N=30 M=41
void fe_choose_elements(int T, int N, int M, double A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        double s = 0.5 * A[t % 2][i][j] + 0.25 * (A[t % 2][i - 1][j] + A[t % 2][i][j + 1]);
        if (j == 1) {
          A[(t + 1) % 2][i][j] = s;
          A[(t + 1) % 2][i][j] = A[(t + 1) % 2][i][j] * 0.5 + A[t % 2][i + 1][j];
        } else if (i % 3 == 0) {
          A[(t + 1) % 2][i][j] = s - A[t % 2][i][j - 1];
        } else {
          A[(t + 1) % 2][i][j] = s;
        }
      }
}
