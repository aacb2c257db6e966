// error: 9:21: the loop's test reads 'A', which the loop swaps with another array: test a variable the loop sets instead
// status: unsupported
void k(int N, int T, float *restrict A, float *restrict B) {
  int t = 0;
  do {
    for (int i = 1; i < N - 1; i++) B[i] = A[i - 1] + A[i + 1];
    float *tmp = A; A = B; B = tmp;
    t++;
  } while (t < T && A[0] < 5);
}
