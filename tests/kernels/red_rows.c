// Reductions into array elements, one per row (issue 11), as a matrix-vector product's inner
// loop: y[i] += A[i][j] * x[j] (double) onto the caller's y, and each row's float sum of
// squares into r[i]. Both loops are in one nest, so with reassociation the rows go to y and
// the columns to the lanes of a warp: a partial per thread, warp shuffles, one atomic per
// warp and row (few rows: the columns fill the GPU). Exact mode keeps the C order.
// run: N=1 M=1
// run: N=3 M=45
// run: N=17 M=1000
// run: N=64 M=4099
// reassociate: terms=M+1 expect=parallel
void red_rows(int N, int M, const double A[N][M], const double x[M], double y[N], float r[N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      y[i] += A[i][j] * x[j];
      r[i] += (float)(A[i][j] * A[i][j]);
    }
}
