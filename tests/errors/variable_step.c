// error: 4:26: loop increment must be a constant step
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i += N) A[i] = 0;
}
