// error: 4:10: '0xFFFFFFFF' has an unsigned type
// status: unsupported
void k(int N, long A[N]) {
  A[0] = 0xFFFFFFFF;
}
