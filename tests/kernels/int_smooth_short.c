// Integer smoothing of short values with truncating division and a remainder, in int
// arithmetic (promotions), stored back to short.
// fill: A=-3000..3000
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=2
// run: T=4 N=9
// run: T=10 N=257
void int_smooth_short(int T, int N, short A[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      A[(t + 1) % 2][i] =
          (short)((A[t % 2][i - 1] + 2 * A[t % 2][i] + A[t % 2][i + 1]) / 4 + A[t % 2][i] % 3);
}
