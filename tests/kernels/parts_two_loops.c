// Two time loops one after the other with a nest between them: each is time-tiled as a part of
// its own (sched/parts.c); the second one's length depends on the first's (2T steps).
// run: T=0 N=4 M=5
// run: T=1 N=3 M=3
// run: T=3 N=33 M=7
// run: T=6 N=40 M=65
void parts_two_loops(int T, int N, int M, float A[2][N][M], float B[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      B[0][i][j] = B[0][i][j] + A[T % 2][i][j];
  for (int s = 0; s < 2 * T; s++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        B[(s + 1) % 2][i][j] = 0.5f * B[s % 2][i][j] + 0.125f * (B[s % 2][i - 1][j] +
                                                                  B[s % 2][i + 1][j] +
                                                                  B[s % 2][i][j - 1] +
                                                                  B[s % 2][i][j + 1]);
}
