// error: 4:31: assignment to an element of const array 'A'
// status: syntax
void k(int N, const float A[N]) {
  for (int i = 0; i < N; i++) A[i] = 0;
}
