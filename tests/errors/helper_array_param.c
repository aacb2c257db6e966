// error: 5:47: parameter 'A' of 'first' is an array: pass an array, or rows of one (A[t % 2])
// status: unsupported
float first(int N, float A[N]) { return A[0]; }
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = first(N, A[i]);
}
