// error: 4:39: comma operator
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) A[i] = 1, A[0] = 2;
}
