// error: 9:23: 'count' computes its value with loops: a call of it is supported where C evaluates it once per statement, not in a loop's header
// status: unsupported
static int count(int n, const float *x) {
  int c = 0;
  for (int i = 0; i < n; i++) c += x[i] > 0;
  return c;
}
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < count(N, A); i++) B[i] = A[i];
}
