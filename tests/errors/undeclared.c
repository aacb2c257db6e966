// error: 4:23: undeclared identifier 'M'
// status: syntax
void k(int N, float A[N]) {
  for (int i = 0; i < M; i++) A[i] = 0;
}
