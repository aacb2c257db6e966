// error: 4:31: write of 'A' leaves its extents [5][5] for these arguments: e.g. A[1][9]
// status: args
static void fill(int n, float *p, float v) {
  for (int k = 0; k < n; k++) p[k] = v;
}
void k(int N, int M, float A[N][M]) {
  fill(2 * M, &A[1][0], 1.0f);
}
