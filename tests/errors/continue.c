// error: 4:33: 'continue' is not supported
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) { continue; }
}
