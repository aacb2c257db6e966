// error: 3:21: a pointer to a pointer or a function is not supported
// status: unsupported
void k(int N, float **A) {
  for (int i = 0; i < N; i++) A[i][0] = 0;
}
