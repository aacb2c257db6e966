// error: 7:19: array 'B' has 1 dimension, 0 indices given
// status: unsupported
static void scale(int n, float c, float *a) {
  for (int i = 0; i < n; i++) a[i] = c * a[i];
}
void k(int N, float A[N], float B[N]) {
  scale(N, 2.0f * B, A);
}
