// error: 4:43: operands of '%' must be integers, not 'double'
// status: syntax
void k(int N, double A[N]) {
  for (int i = 0; i < N; i++) A[i] = A[i] % 2;
}
