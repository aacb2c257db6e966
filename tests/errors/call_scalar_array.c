// error: 7:12: 'B' is an array, but parameter 'c' of 'scale' is a scalar
// status: unsupported
static void scale(int n, float c, float *a) {
  for (int i = 0; i < n; i++) a[i] = c * a[i];
}
void k(int N, float A[N], float B[N]) {
  scale(N, B, A);
}
