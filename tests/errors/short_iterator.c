// error: 4:8: loop iterator 'i' must be 'int', not 'long'
// status: unsupported
void k(int N, float A[N]) {
  for (long i = 0; i < N; i++) A[i] = 0;
}
