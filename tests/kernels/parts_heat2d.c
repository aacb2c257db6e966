// Statements around the time loop (sched/parts.c): a copy before it, a sum after it. The body
// is no stencil as a whole; the time loop alone is, and is time-tiled as a part of its own
// between the two others, each part reading what the one before it wrote.
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=4
// run: T=5 N=37
// run: T=9 N=70
void parts_heat2d(int T, int N, float A[N][N], float B[N][N], float *norm) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      B[i][j] = A[i][j];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        B[i][j] = 0.2f * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = 0.2f * (B[i][j] + B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
  float s = 0.0f;
  for (int i = 0; i < N; i++)
    s += A[i][N / 2];
  *norm = s;
}
