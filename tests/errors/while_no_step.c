// error: 5:3: the while loop does not end its body by stepping its counter 't'
// status: unsupported
void k(int T, int N, float A[N]) {
  int t = 0;
  while (t < T) {
    for (int i = 1; i < N; i++) A[i] += A[i - 1];
  }
}
