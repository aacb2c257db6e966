// A statement directly in the time loop that reads across the whole row (a periodic wrap of
// the left end): time tiles that hold it are illegal for most sizes; where they are, the
// per-step mapping runs and the explanation says why.
// run: T=0 N=2
// run: T=1 N=2
// run: T=3 N=5
// run: T=6 N=40
// run: T=8 N=300
void ti_time_stmt_far(int T, int N, float A[2][N]) {
  for (int t = 0; t < T; t++) {
    A[(t + 1) % 2][0] = A[t % 2][N - 1] * 0.5f + A[t % 2][0] * 0.5f;
    for (int i = 1; i < N; i++) A[(t + 1) % 2][i] = (A[t % 2][i - 1] + A[t % 2][i]) * 0.5f;
  }
}
