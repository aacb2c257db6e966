// Ghost cells of width K updated by loops of their own after the interior in every step
// (three nests folded into one time dimension, in one folded step a step where the ghosts are
// narrower than the interior: they touch nothing it does; the ghost nests run in the edge tiles
// only).
// run: T=0 N=4 K=1
// run: T=1 N=2 K=1
// run: T=2 N=5 K=2
// run: T=3 N=20 K=1
// run: T=5 N=20 K=1
// run: T=5 N=40 K=2
// run: T=9 N=200 K=3
void halo1d(int T, int N, int K, float A[2][N]) {
  for (int t = 0; t < T; t++) {
    for (int i = K; i < N - K; i++) A[(t + 1) % 2][i] = 0.5f * (A[t % 2][i - 1] + A[t % 2][i + 1]);
    for (int i = N - K; i < N; i++) A[(t + 1) % 2][i] = A[t % 2][i];
    for (int i = 0; i < K; i++) A[(t + 1) % 2][i] = A[t % 2][i] * 0.5f;
  }
}
