// error: 5:38: table 'w' has 100 elements: a subscript that is not a constant may choose among at most 64
// status: unsupported
void k(int N, float A[N]) {
  const float w[100] = {1};
  for (int i = 0; i < N; i++) A[i] = w[i % 100];
}
