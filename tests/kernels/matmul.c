// Matrix multiply with an initialisation nest: C = A * B.
// run: NI=1 NJ=1 NK=1
// run: NI=3 NJ=3 NK=3
// run: NI=33 NJ=17 NK=9
// run: NI=100 NJ=129 NK=65
// run: NI=128 NJ=128 NK=128
void matmul(int NI, int NJ, int NK, float C[NI][NJ], const float A[NI][NK], const float B[NK][NJ]) {
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) C[i][j] = 0.0f;
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++)
      for (int k = 0; k < NK; k++) C[i][j] += A[i][k] * B[k][j];
}
