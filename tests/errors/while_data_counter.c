// error: 6:15: a test of the loop's condition reads data and its iterator 'i': a loop may end early only on a test that does not read its iterator
// status: unsupported
void k(int N, float A[N]) {
  int i;
  i = 0;
  while (A[i] > 0 && i < N - 1) {
    A[i] = 0;
    i++;
  }
}
