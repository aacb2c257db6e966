// error: 4:3: label 'again' is not supported
// status: unsupported
void k(int N, float A[N]) {
  again: A[0] = 1;
}
