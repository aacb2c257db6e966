// error: 5:10: 'helper' returns no value: call it as a statement, 'helper(...);'
// status: unsupported
void helper(int N, float A[N]) { }
void k(int N, float A[N], float B[N]) {
  B[0] = helper(N, A);
}
