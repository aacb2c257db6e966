// Symmetric rank-k update of the lower triangle (a syrk shape): triangular bounds j <= i,
// the parallel loops i and j on both sides of the sequential k.
// run: N=1 M=1
// run: N=17 M=5
// run: N=32 M=32
// run: N=65 M=33
void rank_update_lower(int N, int M, double alpha, double beta, double C[N][N],
                       const double A[N][M]) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j <= i; j++) C[i][j] *= beta;
    for (int k = 0; k < M; k++)
      for (int j = 0; j <= i; j++) C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
