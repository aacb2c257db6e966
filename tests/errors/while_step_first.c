// error: 6:5: the counter 't' may be stepped only by the last statement of its loop's body
// status: unsupported
void k(int T, int N, float A[N]) {
  int t = 0;
  while (t < T) {
    t++;
    for (int i = 1; i < N; i++) A[i] += A[i - 1];
  }
}
