// error: 4:10: function 'fmin' takes 2 arguments, 1 given
// status: syntax
void k(int N, double A[N]) {
  A[0] = fmin(A[1]);
}
