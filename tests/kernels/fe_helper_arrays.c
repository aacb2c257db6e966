// Functions that return a value read arrays passed to them: a neighbour sum over rows of a
// variably modified parameter, built on an accessor of a flat view, called from a void step
// function the time loop calls on the two halves of a double buffer.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=3 N=19 M=33
// run: T=4 N=40 M=65
static inline float at(const float *row, int j) {
  return row[j];
}

static inline float cross(int m, const float a[][m], int i, int j) {
  return at(a[i - 1], j) + at(a[i + 1], j) + a[i][j - 1] + a[i][j + 1];
}

static void step(int n, int m, const float in[n][m], float out[n][m]) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++) out[i][j] = 0.5f * in[i][j] + 0.125f * cross(m, in, i, j);
}

void fe_helper_arrays(int T, int N, int M, float A[2][N][M]) {
  for (int t = 0; t < T; t++) step(N, M, A[t & 1], A[(t + 1) & 1]);
}
