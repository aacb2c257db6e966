// error: 5:5: type 'long double' is not supported
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    long double t = A[i];
    A[i] = t;
  }
}
