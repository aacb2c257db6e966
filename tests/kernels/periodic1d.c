// Periodic boundary by explicit wrap statements in the time loop, integer arithmetic with
// a modulo of the values.
// fill: A=0..1000
// run: T=0 N=3
// run: T=1 N=2
// run: T=2 N=3
// run: T=5 N=10
// run: T=9 N=257
void periodic1d(int T, int N, int A[2][N]) {
  for (int t = 0; t < T; t++) {
    A[(t + 1) % 2][0] = (A[t % 2][N - 1] + A[t % 2][0] * 2 + A[t % 2][1]) % 1009;
    for (int i = 1; i < N - 1; i++)
      A[(t + 1) % 2][i] = (A[t % 2][i - 1] + A[t % 2][i] * 2 + A[t % 2][i + 1]) % 1009;
    A[(t + 1) % 2][N - 1] = (A[t % 2][N - 2] + A[t % 2][N - 1] * 2 + A[t % 2][0]) % 1009;
  }
}
