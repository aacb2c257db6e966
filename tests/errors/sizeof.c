// error: 4:10: 'sizeof' is not supported
// status: unsupported
void k(int N, long A[N]) {
  A[0] = sizeof(float);
}
