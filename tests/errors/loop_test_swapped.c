// error: 4:33: the loop's test reads 'A', which the loop swaps with another array: test a variable the loop sets instead
// status: unsupported
void k(int T, int N, float *A, float *B) {
  for (int t = 0; t < T && A[1] < 2.0f; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = A[i] + 0.25f;
    float *w = A;
    A = B;
    B = w;
  }
}
