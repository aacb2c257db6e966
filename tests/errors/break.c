// error: 5:19: 'break' is not supported
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (A[i] < 0) break;
    A[i] = 1;
  }
}
