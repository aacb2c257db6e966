// Nested time loops (an outer sweep of S inner steps) and a relaxation after each sweep.
// run: S=0 T=2 N=5
// run: S=1 T=0 N=5
// run: S=1 T=1 N=3
// run: S=2 T=3 N=2
// run: S=2 T=3 N=17
// run: S=3 T=4 N=200
void nested_time(int S, int T, int N, float A[2][N], float R[N]) {
  for (int s = 0; s < S; s++) {
    for (int t = 0; t < T; t++)
      for (int i = 1; i < N - 1; i++)
        A[(t + 1) % 2][i] = 0.5f * A[t % 2][i] + 0.25f * (A[t % 2][i - 1] + A[t % 2][i + 1]);
    for (int i = 0; i < N; i++) R[i] = R[i] * 0.5f + A[T % 2][i];
  }
}
