// A 1-D stencil whose last step is also copied out in the same nest (`if (t == T - 1)`): the
// copy reads what the stencil wrote in the same iteration, a dependence that keeps the loop
// parallel but shares a folded step; the statements of the nest run one after the other (loop
// distribution, sched/stencil.c), each a folded step of its own, and the kernel time-tiles. As
// one nest it was 'not in stencil form' and ran untiled.
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=5
// run: T=7 N=45
// run: T=40 N=3000
void guarded_out(int T, int N, float A[2][N], float out[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      A[(t + 1) % 2][i] = 0.25f * A[t % 2][i - 1] + 0.5f * A[t % 2][i] + 0.25f * A[t % 2][i + 1];
      if (t == T - 1) out[i] = 2.0f * A[(t + 1) % 2][i];
    }
}
