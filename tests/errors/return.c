// error: 5:3: 'return' is not supported
// status: unsupported
void k(int N, float A[N]) {
  A[0] = 1;
  return;
}
