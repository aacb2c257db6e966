// error: 4:10: has type long double
// status: unsupported
void k(int N, double A[N]) {
  A[0] = 1.5L;
}
