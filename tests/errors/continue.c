// error: 6:10: 'continue', 'break' and 'return' are supported in a loop only at the end of one branch of an 'if' (in its body or a block in it)
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (i > 2) continue;
    else break;
    A[i] = 1;
  }
}
