// Loops that skip the rest of their body: `if (c) continue;` and `if (c) { S; continue; }`,
// nested loops each with their own.
// run: T=0 N=5 M=5
// run: T=1 N=8 M=9
// run: T=6 N=40 M=37
// run: T=15 N=100 M=130
void fe_continue(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      if (i % 5 == 2) {
        for (int j = 1; j < M - 1; j++) A[(t + 1) % 2][i][j] = A[t % 2][i][j];
        continue;
      }
      for (int j = 1; j < M - 1; j++) {
        if (j % 3 == 0) continue;
        float s = A[t % 2][i - 1][j] + A[t % 2][i + 1][j] + A[t % 2][i][j - 1];
        if (j > M - 4) {
          A[(t + 1) % 2][i][j] = 0.5f * A[t % 2][i][j];
          continue;
        }
        A[(t + 1) % 2][i][j] = 0.25f * (s + A[t % 2][i][j + 1]);
      }
    }
}
