// error: 4:10: character constants are not supported
// status: unsupported
void k(int N, int A[N]) {
  A[0] = 'x';
}
