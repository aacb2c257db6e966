// error: 5:3: call to 'helper' is not supported
// status: unsupported
void helper(int N, float A[N]) { }
void k(int N, float A[N]) {
  helper(N, A);
}
