// error: 7:18: 'scale' writes its parameter 'a', but 'A' is const
// status: syntax
static void scale(int n, float c, float *a) {
  for (int i = 0; i < n; i++) a[i] = c * a[i];
}
void k(int N, const float A[N]) {
  scale(N, 2.0f, A);
}
