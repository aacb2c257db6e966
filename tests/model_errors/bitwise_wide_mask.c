// error: 4:42: whose low bits are neither all set nor fewer than 5
// status: unsupported
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = A[i & 22];
}
