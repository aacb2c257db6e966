// error: 4:13: memset is supported with the value 0 only
// status: unsupported
void k(int N, int A[N]) {
  memset(A, -1, N * sizeof(int));
}
