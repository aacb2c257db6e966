// PolyBench seidel-2d: in-place Gauss-Seidel sweep, 9 points, double.
// run: T=0 N=4
// run: T=1 N=3
// run: T=2 N=3
// run: T=3 N=33
// run: T=4 N=100
// run: T=10 N=200
void seidel2d(int T, int N, double A[N][N]) {
  for (int t = 0; t <= T - 1; t++)
    for (int i = 1; i <= N - 2; i++)
      for (int j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] +
                   A[i][j + 1] + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) /
                  9.0;
}
