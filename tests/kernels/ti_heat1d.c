// 1-D heat equation on a time-indexed array A[T+1][N] (every step kept), fixed boundaries
// copied forward inside the time loop.
// run: T=0 N=4
// run: T=1 N=1
// run: T=1 N=2
// run: T=2 N=3
// run: T=5 N=37
// run: T=16 N=300
void ti_heat1d(int T, int N, double A[T + 1][N]) {
  for (int t = 0; t < T; t++) {
    A[t + 1][0] = A[t][0];
    for (int i = 1; i < N - 1; i++)
      A[t + 1][i] = A[t][i] + 0.25 * (A[t][i - 1] - 2.0 * A[t][i] + A[t][i + 1]);
    A[t + 1][N - 1] = A[t][N - 1];
  }
}
