// error: 4:10: integer constant '0x1FFFFFFFFFFFFFFFFu' is too large
// status: unsupported
void k(int N, long A[N]) {
  A[0] = 0x1FFFFFFFFFFFFFFFFu;
}
