// error: 5:28: 'continue', 'break' and 'return' are supported in a loop only at the end of an 'if' (without 'else') directly in its body
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (i > 2) { if (A[i]) break; }
    A[i] = 1;
  }
}
