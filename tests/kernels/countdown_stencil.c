// Loops counting down: the time loop and the space loop both decrement.
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=2
// run: T=3 N=10
// run: T=8 N=300
void countdown_stencil(int T, int N, float A[2][N]) {
  for (int t = T - 1; t >= 0; t--)
    for (int i = N - 2; i >= 1; i--)
      A[t % 2][i] =
          0.3f * A[(t + 1) % 2][i - 1] + 0.4f * A[(t + 1) % 2][i] + 0.3f * A[(t + 1) % 2][i + 1];
}
