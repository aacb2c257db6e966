// error: 5:31: 'tmp' has an initializer list, which makes it a table of constants: it cannot be written
// status: unsupported
void k(int N, float A[N]) {
  float tmp[4] = {0};
  for (int i = 0; i < 4; i++) tmp[i] = A[i];
}
