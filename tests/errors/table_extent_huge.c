// error: 4:17: table 't' has more than 4096 elements
// status: unsupported
void k(int N, float A[N]) {
  const float t[3000000000][3000000000] = {{1, 2}, {3}};
  for (int i = 0; i < N; i++) A[i] = t[i % 2][1];
}
