// error: 4:10: called object 'w' is not a function
// status: syntax
void k(int N, float A[N], float w) {
  A[0] = w(1);
}
