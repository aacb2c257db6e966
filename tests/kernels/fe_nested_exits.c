// `continue` and `break` in blocks nested in a loop's body, deeper than an `if` directly in
// it: the rest of each block around skipped too, through a flag of the loop's (jit/parse.c,
// skip_set and skip_after), set where the exit is and tested after each statement holding it.
// A break ends a row's scan; a continue skips the rest of a point, at depths 2 and 3, in a
// then branch and in an else branch (whose if's then branch gets what follows).
// fill: a=-12..12 lim=0..8
// run: T=0 N=3 M=3
// run: T=1 N=4 M=5
// run: T=3 N=17 M=20
// run: T=4 N=60 M=45
void fe_nested_exits(int T, int N, int M, double a[N][M], double b[N][M], int lim[N],
                     int stop[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        b[i][j] = 0.5 * a[i][j];
        if (a[i][j] > 0) {
          if (a[i][j] > 10) continue;
          b[i][j] += a[i - 1][j];
          if (a[i][j + 1] < 0) {
            b[i][j] -= 1;
            if (a[i][j - 1] < -6) continue;
            b[i][j] *= 0.75;
          }
          b[i][j] += 0.25;
        } else {
          if (a[i][j] < -10) {
            b[i][j] = -1;
          } else {
            b[i][j] -= 0.5;
            continue;
          }
          b[i][j] -= a[i][j - 1];
        }
        b[i][j] += a[i + 1][j];
      }
    for (int i = 1; i < N - 1; i++) {
      stop[i] = -1;
      for (int j = 0; j < M; j++) {
        if (b[i][j] > 0) {
          a[i][j] = 0.5 * b[i][j];
          if (j > lim[i]) {
            stop[i] = j;
            break;
          }
        }
        a[i][j] -= 0.125;
      }
    }
  }
}
