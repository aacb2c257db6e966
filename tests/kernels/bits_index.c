// Subscripts written with bit operators: pairs (i ^ 1), even rows (i & ~1), odd columns
// (j | 1), halves ((j >> 1) << 1), a 4-bit mask (j & 5), and shifts by a count the data
// gives, always below the width.
// run: N=2 M=2
// run: N=3 M=7
// run: N=10 M=14
// run: N=64 M=96
void bits_index(int N, int M, float A[N + 1][M + 1], unsigned C[N][M], float B[N][M],
                unsigned D[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      B[i][j] = A[i ^ 1][(j >> 1) << 1] + A[i & ~1][j | 1] - A[(i * 4 + 3) >> 2][j & 5];
      D[i][j] = C[i][j] >> (C[i][j] & 31u) ^ C[i][M - 1 - j] << (j & 7);
    }
}
