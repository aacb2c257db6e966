// error: 5:3: 'y' is read before it is assigned
// status: unsupported
float f(float x) {
  float y;
  y += x;
  return y;
}
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) A[i] = f(A[i]);
}
