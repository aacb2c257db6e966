// Affine ifs that only choose the values of locals (coefficients by region, an else-if chain
// without a final else, a nested if), declared C89-style at the top of the function: each
// becomes one assignment of ?: choices, the declarations move into the loop whose iterations
// write them first, and the nest keeps its stencil form.
// run: T=0 N=4 M=4
// run: T=1 N=3 M=5
// run: T=2 N=12 M=9
// run: T=4 N=30 M=41
void fe_choose_locals(int T, int N, int M, double A[N][M], double B[N][M]) {
  double w, e, s;
  int i, j, t;
  for (t = 0; t < T; t++) {
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < M - 1; j++) {
        s = 0.5;
        if (i < N / 2) {
          w = 0.25;
          if (j == 1) e = 0.0;
          else e = A[i][j - 1];
        } else if (j < M / 2) {
          w = 0.125;
          e = A[i - 1][j];
          s = 0.375;
        } else {
          w = 0.0625;
          e = A[i + 1][j] + A[i][j + 1];
        }
        B[i][j] = s * A[i][j] + w * e;
      }
    for (i = 1; i < N - 1; i++)
      for (j = 1; j < M - 1; j++) A[i][j] = B[i][j];
  }
}
