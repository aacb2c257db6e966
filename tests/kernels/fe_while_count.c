// The counter of a while loop read after the loop (jit/parse.c, revive_counter): a local again,
// set where its first value was to the value the loop ends with (it runs to its bound: the
// first value plus the step times the iteration count), so the time loop holds no statement
// but the stencil's nest and is time-tiled; the loop still counts with its iterator.
// run: T=0 N=4
// run: T=1 N=3
// run: T=2 N=9
// run: T=6 N=33
// run: T=11 N=130
void fe_while_count(int T, int N, float A[2][N], int steps[1]) {
  int t = 3;
  while (t < T + 3) {
    for (int i = 1; i < N - 1; i++)
      A[(t + 1) % 2][i] = 0.5f * A[t % 2][i] + 0.25f * (A[t % 2][i - 1] + A[t % 2][i + 1]);
    t++;
  }
  steps[0] = t;
}
