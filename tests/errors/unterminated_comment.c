// error: 4:3: unterminated comment
// status: syntax
void k(int N, int A[N]) {
  /* A[0] = 1;
}
