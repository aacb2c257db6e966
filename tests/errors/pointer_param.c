// error: 3:15: pointer parameter 'A': declare it as an array with extents
// status: unsupported
void k(int N, float *restrict A) {
  for (int i = 0; i < N; i++) A[i] = 0;
}
