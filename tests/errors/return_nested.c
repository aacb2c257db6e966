// error: 5:16: 'return;' is supported only as the last statement of the function, or at the end of one branch of an 'if' (in its body, a block in it or a loop's)
// status: unsupported
void k(int N, float A[N]) {
  if (N > 2) {
    if (N > 4) return;
    else return;
  }
  A[1] = 2;
}
