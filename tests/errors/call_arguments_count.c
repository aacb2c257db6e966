// error: 7:3: function 'step' takes 3 arguments, 2 given
// status: syntax
static void step(int n, const float *in, float *out) {
  for (int i = 1; i < n - 1; i++) out[i] = in[i];
}
void k(int N, float A[N], float B[N]) {
  step(N, A);
}
