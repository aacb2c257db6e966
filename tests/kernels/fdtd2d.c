// PolyBench fdtd-2d: per time step the ey[0][j] = fict[t] boundary nest, then three nests.
// fict is an array parameter with one spare element so that T=0 still gives a valid extent.
// run: T=0 NX=4 NY=5
// run: T=1 NX=1 NY=1
// run: T=1 NX=3 NY=3
// run: T=2 NX=2 NY=7
// run: T=4 NX=33 NY=17
// run: T=6 NX=100 NY=129
// run: T=10 NX=256 NY=256
void fdtd2d(int T, int NX, int NY, float ex[NX][NY], float ey[NX][NY], float hz[NX][NY],
            const float fict[T + 1]) {
  for (int t = 0; t < T; t++) {
    for (int j = 0; j < NY; j++) ey[0][j] = fict[t];
    for (int i = 1; i < NX; i++)
      for (int j = 0; j < NY; j++) ey[i][j] = ey[i][j] - 0.5f * (hz[i][j] - hz[i - 1][j]);
    for (int i = 0; i < NX; i++)
      for (int j = 1; j < NY; j++) ex[i][j] = ex[i][j] - 0.5f * (hz[i][j] - hz[i][j - 1]);
    for (int i = 0; i < NX - 1; i++)
      for (int j = 0; j < NY - 1; j++)
        hz[i][j] = hz[i][j] - 0.7f * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}
