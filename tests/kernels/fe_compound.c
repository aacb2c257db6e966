// Front end: compound assignments += -= *= /= on float, double and int elements.
// fill: D=1..9
// run: N=1 M=1
// run: N=3 M=3
// run: N=33 M=17
// run: N=129 M=100
// run: N=256 M=256
void fe_compound(int N, int M, float A[N][M], double B[N][M], int C[N][M], const int D[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      A[i][j] += 0.5f;
      A[i][j] *= 1.25f;
      A[i][j] /= (float)D[i][j];
      A[i][j] -= 0.1;
      B[i][j] += A[i][j];
      B[i][j] /= 3;
      B[i][j] *= D[i][j];
      C[i][j] -= D[i][j] * 2;
      C[i][j] *= 3;
      C[i][j] /= D[i][j];
      C[i][j] += 1.9f;
    }
}
