// error: 4:16: expected ')', found ';'
// status: syntax
void k(int N, float A[N]) {
  A[0] = (1 + 2;
}
