// error: 4:36: operator '|='
// status: unsupported
void k(int N, int A[N]) {
  for (int i = 0; i < N; i++) A[i] |= 1;
}
