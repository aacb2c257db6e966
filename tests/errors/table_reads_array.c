// error: 4:20: an element of table 'w' must be an expression of literals, parameters and iterators
// status: unsupported
void k(int N, float A[N]) {
  float w[2] = {1, A[0]};
  for (int i = 0; i < N; i++) A[i] = w[i % 2];
}
