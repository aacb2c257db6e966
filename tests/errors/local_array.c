// error: 4:18: initializer lists are not supported
// status: unsupported
void k(int N, float A[N]) {
  float tmp[4] = {0};
}
