// Coefficient tables: a file-scope 3x3 kernel (its last row partly given: zeros), a table with
// an open extent, and a local one whose elements use a scalar parameter, chosen by a window's
// iterators (folded to the element), by i % 2 and j & 1, and by (i + j) % 3 (chosen at run
// time).
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=3 N=17 M=9
// run: T=8 N=64 M=70
#pragma GCC diagnostic ignored "-Wmissing-braces" /* w's elements without inner braces, on purpose */
static const float K[3][3] = {{0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f}};
const double taps[] = {1, -2, 1,};
void fe_tables(int T, int N, int M, float alpha, float A[2][N][M]) {
  const float w[2][2] = {alpha, 1 - alpha, 0.5f};
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        float s = 0;
        for (int di = -1; di <= 1; di++)
          for (int dj = -1; dj <= 1; dj++)
            s += K[di + 1][dj + 1] * A[t % 2][i + di][j + dj];
        A[(t + 1) % 2][i][j] = s * w[i % 2][j & 1] + (float)taps[(i + j) % 3];
      }
}
