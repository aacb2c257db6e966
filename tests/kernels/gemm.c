// PolyBench gemm: C = beta * C + alpha * A * B, accumulating into C (no separate init), double.
// run: NI=2 NJ=3 NK=4 alpha=1.5 beta=1.2
// run: NI=3 NJ=3 NK=0
// run: NI=33 NJ=17 NK=9
// run: NI=100 NJ=65 NK=129 alpha=-0.5
// run: NI=128 NJ=128 NK=128
void gemm(int NI, int NJ, int NK, double alpha, double beta, double C[NI][NJ],
          const double A[NI][NK + 1], const double B[NK + 1][NJ]) {
  for (int i = 0; i < NI; i++) {
    for (int j = 0; j < NJ; j++) C[i][j] *= beta;
    for (int k = 0; k < NK; k++)
      for (int j = 0; j < NJ; j++) C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
