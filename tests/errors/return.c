// error: 5:19: 'return' is supported only as the last statement of the function, or at the end of an 'if' (without 'else') directly in its body
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (A[i] < 0) return;
    A[i] = 1;
  }
}
