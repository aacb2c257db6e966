// error: 4:31: array 'B' has 1 dimension, 2 indices given
// status: unsupported
void k(int N, float B[N]) {
  for (int i = 0; i < N; i++) B[i][i] = 0;
}
