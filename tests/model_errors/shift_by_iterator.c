// error: 4:42: a shift by a count that is not a constant
// status: unsupported
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = A[1 << i];
}
