// error: 9:10: iterator 't' used outside its loop
// status: unsupported
void k(int T, int N, float A[N]) {
  int t = 0;
  while (t < T) {
    for (int i = 1; i < N; i++) A[i] += A[i - 1];
    t++;
  }
  A[0] = t;
}
