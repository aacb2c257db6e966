// error: 4:42: bitwise operation of two iterator-dependent values
// status: unsupported
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = A[i & (i + 1)];
}
