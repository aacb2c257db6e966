// error: 5:40: subscript 3 of table 'w' is outside its extent 3
// status: syntax
void k(int N, float A[N]) {
  const float w[] = {1, 2, 3};
  for (int i = 0; i < N; i++) A[i] = w[3];
}
