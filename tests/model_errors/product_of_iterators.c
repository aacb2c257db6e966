// error: 5:44: a product of two iterator-dependent values
// status: unsupported
void k(int N, float A[N][N], float B[N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) B[i] = A[i * j][0];
}
