// error: 4:10: string literals are not supported
// status: unsupported
void k(int N, int A[N]) {
  A[0] = "x"[0];
}
