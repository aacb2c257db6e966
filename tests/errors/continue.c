// error: 5:16: 'continue' and 'break' are supported only at the end of an 'if' (without 'else') directly in a loop's body
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (i > 2) continue;
    else A[i] = 1;
  }
}
