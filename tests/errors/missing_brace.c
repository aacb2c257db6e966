// error: 6:1: expected '}' before end of input
// status: syntax
void k(int N, float A[N]) {
  A[0] = 1;

