// error: 4:10: pointer dereference '*'
// status: unsupported
void k(int N, float A[N]) {
  A[0] = *A;
}
