// A 3-D view of a flat double array through a cast pointer, copied back each step.
// run: T=0 n=3
// run: T=1 n=3
// run: T=3 n=10
// run: T=2 n=17
void ptr_reshape_copy(int T, int n, double *a_, double *b_) {
  double (*a)[n][n] = (double (*)[n][n])a_;
  double (*b)[n][n] = (double (*)[n][n])b_;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          b[i][j][k] = (a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] + a[i][j + 1][k] +
                        a[i][j][k - 1] + a[i][j][k + 1]) / 6.0;
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++) a[i][j][k] = b[i][j][k];
  }
}
