// Game-of-life variant without locals: neighbour counts compared inline, cells hold 0..3
// ("ages"), combined with ?:, &&, || and !.
// fill: G=0..3
// run: T=0 N=4 M=4
// run: T=1 N=3 M=3
// run: T=3 N=33 M=9
// run: T=6 N=129 M=100
// run: T=10 N=256 M=256
void life_counts(int T, int N, int M, int G[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        G[(t + 1) % 2][i][j] =
            ((G[t % 2][i - 1][j] > 0) + (G[t % 2][i + 1][j] > 0) + (G[t % 2][i][j - 1] > 0) +
                     (G[t % 2][i][j + 1] > 0) >=
                 3 ||
             (!(G[t % 2][i][j] == 0) && (G[t % 2][i - 1][j - 1] > 1 || G[t % 2][i + 1][j + 1] > 1)))
                ? (G[t % 2][i][j] < 3 ? G[t % 2][i][j] + 1 : 3)
                : 0;
}
