// error: 5:16: 'return;' is supported only as the last statement of the function, or at the end of an 'if' (without 'else') directly in its body or a loop's
// status: unsupported
void k(int N, float A[N]) {
  if (N > 2) {
    if (N > 4) return;
    A[0] = 1;
  }
  A[1] = 2;
}
