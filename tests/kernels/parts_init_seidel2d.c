// An initialising nest, then an in-place Gauss-Seidel sweep: two parts (sched/parts.c), of which
// only the first has the form of a stencil (its outer loop, which carries nothing, as a time
// loop of one space dimension). Tile sizes of two widths, meant for a 2-D stencil, fit no part:
// the automatic choice runs both untiled, a forced tiling is refused (tests/CMakeLists.txt).
// run: T=0 N=4
// run: T=1 N=3
// run: T=3 N=33
// run: T=4 N=70
void parts_init_seidel2d(int T, int N, double A[N][N]) {
  for (int p = 0; p < N; p++)
    for (int q = 0; q < N; q++)
      A[p][q] = A[p][q] * 0.5 + 0.25;
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) * 0.2;
}
