// error: 4:3: a statement must assign
// status: unsupported
void k(int N, float A[N]) {
  A[0] + 1;
}
