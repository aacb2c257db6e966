// error: 4:38: the operand of '~' must be an integer, not 'double'
// status: syntax
void k(int N, double A[N], int B[N]) {
  for (int i = 0; i < N; i++) B[i] = ~A[i];
}
