// error: 6:3: a while loop must count: set its counter before it (int t = 0; while (t < T) { ... t++; }) and step it at the end of its body (t++;), or write a for loop
// status: unsupported
void k(int T, int N, float A[N]) {
  int t = 0;
  A[0] = t;
  while (t < T) {
    for (int i = 1; i < N; i++) A[i] += A[i - 1];
    t++;
  }
}
