// error: 4:10: unsigned integer constant '10u'
// status: unsupported
void k(int N, int A[N]) {
  A[0] = 10u;
}
