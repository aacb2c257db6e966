// Window loops: the game of life with its neighbours counted by two loops over a 3x3 window
// that skip the centre (an if on the window's iterators), the count in a local declared
// before the window, a second local declared inside it. The windows are unrolled into one
// statement (jit/window.c): the count stays a register and the nest time-tiles.
// fill: G=0..1
// run: T=0 N=4 M=4
// run: T=1 N=3 M=3
// run: T=3 N=33 M=9
// run: T=6 N=70 M=41
void window_life(int T, int N, int M, int G[2][N][M]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        int alive = 0;
        for (int di = -1; di <= 1; di++)
          for (int dj = -1; dj <= 1; dj++)
            if (di != 0 || dj != 0) {
              int cell = G[t % 2][i + di][j + dj];
              alive += cell;
            }
        G[(t + 1) % 2][i][j] = alive == 3 || (alive == 2 && G[t % 2][i][j]) ? 1 : 0;
      }
}
