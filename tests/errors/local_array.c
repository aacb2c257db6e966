// error: 4:9: local array 'tmp' is not supported
// status: unsupported
void k(int N, float A[N]) {
  float tmp[4];
}
