// error: 6:15: a test of the loop's condition reads data and its counter 'i': a loop that counts may end early only on a test that does not read the counter
// status: unsupported
void k(int N, float A[N]) {
  int i;
  i = 0;
  while (A[i] > 0 && i < N - 1) {
    A[i] = 0;
    i++;
  }
}
