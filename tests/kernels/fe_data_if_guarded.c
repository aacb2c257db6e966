// Ifs on data whose affine conjuncts keep a subscript in bounds (j > 0 && A[i][j - 1] ...),
// nested ones, else ifs, an if on data ending in continue, and a division only where the data
// says it is defined.
// fill: C=-5..5
// run: N=1 M=1
// run: N=3 M=2
// run: N=30 M=41
// run: N=64 M=100
void fe_data_if_guarded(int N, int M, float thr, float A[N][M], float B[N][M], int C[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      float v;
      if (j > 0 && A[i][j - 1] > thr) {
        v = A[i][j - 1];
        if (C[i][j] % 3 == 0) {
          float w = v * 2;
          v = w + 1;
          C[i][j] = 7;
        } else if (C[i][j] > 0) {
          v = -v;
        }
      } else if (i > 0 && A[i - 1][j] < 0.25f) {
        v = A[i - 1][j];
      } else {
        v = 1.5f;
        if (A[i][j] > thr) B[i][j] = 0;
      }
      if (v > 1.0f) B[i][j] += v;
      int k = C[i][j];
      if (k != 0) B[i][j] += (float)(100 / k);
      if (k == 2) {
        C[i][j] = k * 3;
        continue;
      }
      C[i][j] = k + 1;
    }
}
