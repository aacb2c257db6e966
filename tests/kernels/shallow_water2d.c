// Linearised shallow water: height h and velocities u, v, three double buffers updated in one
// loop body, each read at offsets of its own (u along i, v along j, h along both). The flow-in
// copy of each staged array must come from that array's accesses alone (see maxwell1d_pair.c).
// run: T=0 N=3 M=3
// run: T=1 N=3 M=3
// run: T=2 N=4 M=5
// run: T=5 N=27 M=33
// run: T=12 N=90 M=140
void shallow_water2d(int T, int N, int M, float h[2][N][M], float u[2][N][M], float v[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        int a = t % 2, b = (t + 1) % 2;
        h[b][i][j] = h[a][i][j] - 0.1f * (u[a][i + 1][j] - u[a][i - 1][j] + v[a][i][j + 1] -
                                          v[a][i][j - 1]);
        u[b][i][j] = u[a][i][j] - 0.1f * (h[a][i + 1][j] - h[a][i - 1][j]);
        v[b][i][j] = v[a][i][j] - 0.1f * (h[a][i][j + 1] - h[a][i][j - 1]);
      }
}
