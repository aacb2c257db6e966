// All-pairs shortest paths in place (a floyd-warshall shape): step k reads row k and column
// k, which step k itself writes, so only index-set splitting on i = k and j = k leaves a
// parallel plane. Negative weights (random doubles in [-1, 1)) make those writes change
// values; their cycles make paths fall exponentially, which int weights would overflow.
// run: N=1
// run: N=2
// run: N=7
// run: N=32
// run: N=61
void shortest_paths(int N, double D[N][N]) {
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        D[i][j] = D[i][j] < D[i][k] + D[k][j] ? D[i][j] : D[i][k] + D[k][j];
}
