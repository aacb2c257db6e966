// error: 4:43: 'j' is stepped twice in the loop's increment
// status: unsupported
void k(int N, int A[N]) {
  for (int i = 0, j = 0; i < N; i++, j++, j++) A[i] = j;
}
