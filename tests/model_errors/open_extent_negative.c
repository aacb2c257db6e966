// error: 4:31: write of 'A' leaves its extents [4] for these arguments: e.g. A[-1]
// status: args
void k(int N, float *A) {
  for (int i = 0; i < N; i++) A[i - 1] = 0;
}
