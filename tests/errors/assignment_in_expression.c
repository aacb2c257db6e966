// error: 4:44: assignment inside an expression
// status: unsupported
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) A[i] = (B[i] = 0) + 1;
}
