// error: 4:8: loop iterator 'i' must be int, long or unsigned, not 'short'
// status: unsupported
void k(int N, float A[N]) {
  for (short i = 0; i < N; i++) A[i] = 0;
}
