// Conway's game of life on int cells (0 or 1), fixed dead border, double-buffered.
// fill: G=0..1
// run: T=0 N=5 M=5
// run: T=1 N=3 M=3
// run: T=2 N=3 M=4
// run: T=4 N=33 M=20
// run: T=8 N=100 M=129
// run: T=10 N=256 M=256
void life(int T, int N, int M, int G[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        int n = G[t % 2][i - 1][j - 1] + G[t % 2][i - 1][j] + G[t % 2][i - 1][j + 1] +
                G[t % 2][i][j - 1] + G[t % 2][i][j + 1] + G[t % 2][i + 1][j - 1] +
                G[t % 2][i + 1][j] + G[t % 2][i + 1][j + 1];
        G[(t + 1) % 2][i][j] = (n == 3 || (n == 2 && G[t % 2][i][j] != 0)) ? 1 : 0;
      }
}
