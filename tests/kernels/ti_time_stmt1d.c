// Boundary updates directly in the time loop, outside the space loop: the left end copied
// forward before the nest, the right end relaxed after it.
// run: T=0 N=3
// run: T=1 N=2
// run: T=2 N=3
// run: T=5 N=33
// run: T=9 N=130
void ti_time_stmt1d(int T, int N, float A[2][N]) {
  for (int t = 0; t < T; t++) {
    A[(t + 1) % 2][0] = A[t % 2][0] * 0.75f + 0.25f;
    for (int i = 1; i < N - 1; i++)
      A[(t + 1) % 2][i] = 0.25f * A[t % 2][i - 1] + 0.5f * A[t % 2][i] + 0.25f * A[t % 2][i + 1];
    A[(t + 1) % 2][N - 1] = 0.5f * A[t % 2][N - 1] + 0.5f * A[t % 2][N - 2];
  }
}
