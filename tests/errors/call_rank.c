// error: 7:11: 'A' passes 2 dimensions where parameter 'in' of 'step' has 1
// status: unsupported
static void step(int n, const float *in, float *out) {
  for (int i = 1; i < n - 1; i++) out[i] = in[i];
}
void k(int N, float A[N][N], float B[N]) {
  step(N, A, B);
}
