// The time loop not outermost: a batch of independent 1-D problems, each stepped in time.
// run: B=0 T=3 N=5
// run: B=1 T=0 N=4
// run: B=2 T=1 N=3
// run: B=3 T=4 N=1
// run: B=4 T=5 N=33
// run: B=16 T=6 N=130
void batched_rows(int B, int T, int N, double A[B][2][N]) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int i = 1; i < N - 1; i++)
        A[b][(t + 1) % 2][i] =
            A[b][t % 2][i] + 0.2 *
                                 (A[b][t % 2][i - 1] - 2.0 * A[b][t % 2][i] + A[b][t % 2][i + 1]) *
                                 (double)(b + 1);
}
