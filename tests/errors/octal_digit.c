// error: 4:10: invalid digit '9' in octal constant
// status: syntax
void k(int N, int A[N]) {
  A[0] = 09;
}
