// error: 4:10: character constant 'xy' is not supported
// status: unsupported
void k(int N, int A[N]) {
  A[0] = 'xy';
}
