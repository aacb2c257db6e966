// error: 4:43: operands of '&' must be integers, not 'float'
// status: syntax
void k(int N, float A[N], int B[N]) {
  for (int i = 0; i < N; i++) B[i] = A[i] & 1;
}
