// Compound assignments in a time loop: B accumulates a stencil of A, A relaxes towards B.
// run: T=0 N=4
// run: T=1 N=3
// run: T=3 N=2
// run: T=4 N=17
// run: T=7 N=150
void accum_compound(int T, int N, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i] += 0.1f * (A[i - 1] - 2.0f * A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) A[i] -= 0.05f * B[i];
  }
}
