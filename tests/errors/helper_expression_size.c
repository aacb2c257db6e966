// error: 6:13: expression of more than 262144 operations (its helpers inlined) is not supported
// status: unsupported
float f(float x) {
  x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x;
  x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x;
  x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x;
  x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x;
  x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x; x = x * x + x;
  return x;
}
void k(int N, float A[N]) { for (int i = 0; i < N; i++) A[i] = f(A[i]); }
