// Two earlier steps with asymmetric offsets on a time-indexed array: A[t][i] from A[t-1][i+1]
// and A[t-2][i-3].
// run: T=2 N=6
// run: T=3 N=4
// run: T=4 N=5
// run: T=6 N=40
// run: T=20 N=200
void ti_asym1d(int T, int N, float A[T][N]) {
  for (int t = 2; t < T; t++)
    for (int i = 3; i < N - 1; i++)
      A[t][i] = 0.5f * A[t - 1][i + 1] + 0.25f * A[t - 2][i - 3] + 0.125f * A[t - 1][i];
}
