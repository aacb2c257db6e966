// error: 5:3: 'else' without a previous 'if'
// status: syntax
void k(int N, float A[N]) {
  A[0] = 1;
  else A[0] = 2;
}
