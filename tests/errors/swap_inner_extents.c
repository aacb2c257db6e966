// error: 6:13: 'A' and 'B' differ in element type, constness or inner extents: they cannot be swapped
// status: unsupported
void k(int T, int N, int M, int K, float A[N][M], float B[N][K]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i][0] = A[i - 1][0];
    float (*w)[M] = A;
    A = B;
    B = w;
  }
}
