// Arrays whose first extent is open: a pointer to rows (double (*U)[M]), an unsized first
// dimension (const double C[][M]) and a pointer read with an offset (const double *w).
// run: T=0 N=3 M=3
// run: T=1 N=4 M=3
// run: T=3 N=9 M=12
// run: T=9 N=70 M=45
void ptr_rows(int T, int N, int M, double (*U)[M], const double C[][M], const double *w,
              double V[N][M]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        V[i][j] = U[i][j] + C[i][j] * (w[2] * U[i - 1][j] + w[3] * U[i + 1][j] +
                                       w[4] * (U[i][j - 1] + U[i][j + 1]) - w[5] * U[i][j]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        U[i][j] = V[i][j];
  }
}
