// A statement guarded by t that reads what the nest's stencil wrote at the previous iteration
// (A[..][i - 1]): running the statements one after the other would keep that value, but the
// untiled schedules run the nest as written, whose loop would then carry the dependence and
// could not be parallel; so the nest is not distributed and the kernel is not in stencil form
// (sched/stencil.c). Distributed, the per-step GPU kernel read neighbours' values before or
// after they were written (at N=150000, 2 points a thread, 293 elements differed).
// run: T=0 N=3
// run: T=1 N=4
// run: T=3 N=9
// run: T=1 N=150000
// run: T=20 N=3000
void guarded_prev(int T, int N, float A[2][N], float out[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      A[(t + 1) % 2][i] = 0.25f * A[t % 2][i - 1] + 0.5f * A[t % 2][i] + 0.25f * A[t % 2][i + 1];
      if (t == T - 1) out[i] = A[(t + 1) % 2][i - 1] + A[(t + 1) % 2][i];
    }
}
