// error: 5:3: 'while' loops are not supported
// status: unsupported
void k(int N, float A[N]) {
  int i;
  while (i < N) A[i] = 0;
}
