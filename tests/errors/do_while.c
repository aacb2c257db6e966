// error: 4:3: 'do' loops are not supported
// status: unsupported
void k(int N, float A[N]) {
  do { A[0] = 1; } while (A[0] < 0);
}
