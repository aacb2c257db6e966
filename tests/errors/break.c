// error: 5:28: 'continue' and 'break' are supported only at the end of an 'if' (without 'else') directly in a loop's body
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (i > 2) { if (A[i]) break; }
    A[i] = 1;
  }
}
