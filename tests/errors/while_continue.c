// error: 6:17: 'continue' in a while or do loop is not supported
// status: unsupported
void k(int T, int N, float A[N]) {
  int t = 0;
  while (t < T) {
    if (t == 3) continue;
    for (int i = 1; i < N; i++) A[i] += A[i - 1];
    t++;
  }
}
