// Out-of-place transposition (a non-stencil affine nest), double.
// run: N=1 M=1
// run: N=3 M=5
// run: N=33 M=17
// run: N=100 M=129
// run: N=256 M=256
void transpose(int N, int M, const double A[N][M], double B[M][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) B[j][i] = A[i][j];
}
