// Matrix product accumulated with the sequential loop outermost: k carries every dependence,
// the parallel i and j sit inside it (on the GPU isl's scheduler brings them out).
// run: NI=1 NJ=1 NK=1
// run: NI=33 NJ=17 NK=9
// run: NI=64 NJ=96 NK=32
// run: NI=47 NJ=129 NK=65
// reassociate: terms=NK+1 expect=parallel
void matmul_kij(int NI, int NJ, int NK, float C[NI][NJ], const float A[NI][NK],
                const float B[NK][NJ]) {
  for (int k = 0; k < NK; k++)
    for (int i = 0; i < NI; i++)
      for (int j = 0; j < NJ; j++) C[i][j] += A[i][k] * B[k][j];
}
