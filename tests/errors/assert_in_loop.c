// error: 5:5: assert is supported only among the statements of the function's body, outside loops and ifs and before any return
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    assert(i < N);
    A[i] = 0;
  }
}
