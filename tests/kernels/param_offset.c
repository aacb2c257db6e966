// Offsets by a parameter: A[i + K] and A[i - K], bounds i < N - K and i <= N.
// run: T=0 N=5 K=1
// run: T=1 N=3 K=1
// run: T=2 N=4 K=2
// run: T=3 N=10 K=3
// run: T=3 N=2 K=3
// run: T=5 N=100 K=4
void param_offset(int T, int N, int K, float A[2][N + 1]) {
  for (int t = 0; t < T; t++) {
    for (int i = K; i < N - K; i++) A[(t + 1) % 2][i] = 0.5f * (A[t % 2][i - K] + A[t % 2][i + K]);
    for (int i = N - K > K ? N - K : K; i <= N; i++) A[(t + 1) % 2][i] = A[t % 2][i];
    for (int i = 0; i < K && i <= N; i++) A[(t + 1) % 2][i] = A[t % 2][i] * 0.5f;
  }
}
