// A guarded statement that reads what the nest's first statement writes at the next iteration
// (B[i + 1]): in the C order it reads the previous step's value, which running the statements
// one after the other (loop distribution) would change; so the nest is not distributed and the
// kernel is not in stencil form (sched/stencil.c).
// run: T=0 N=4
// run: T=1 N=4
// run: T=3 N=9
// run: T=6 N=300
void guarded_lag(int T, int N, float A[N], float B[N], float C[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      B[i] = 0.5f * (A[i - 1] + A[i + 1]) + 0.01f * (float)t;
      if (t % 2 == 0) C[i] = B[i + 1] - B[i];
    }
}
