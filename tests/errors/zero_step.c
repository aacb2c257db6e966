// error: 4:26: the loop step is zero
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i += 0) A[i] = 0;
}
