// error: 4:38: bitwise operator '~'
// status: unsupported
void k(int N, int A[N]) {
  for (int i = 0; i < N; i++) A[i] = ~i;
}
