// error: 4:39: array 'A' has 2 dimensions, 1 index given
// status: unsupported
void k(int N, float A[N][N], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = (A[i])[0];
}
