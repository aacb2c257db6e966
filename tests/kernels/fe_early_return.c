// Guard clauses: a function that returns early where there is nothing to do (too few points,
// no steps), as library code checks its arguments, and a step function that does too.
// run: T=0 N=3
// run: T=2 N=2
// run: T=1 N=3
// run: T=3 N=4
// run: T=6 N=100
static void relax(int n, const float *in, float *out) {
  if (n < 4) return;
  for (int i = 1; i < n - 1; i++) out[i] = 0.25f * (in[i - 1] + 2.0f * in[i] + in[i + 1]);
}

void fe_early_return(int T, int N, float *a, float *b) {
  if (T <= 0) return;
  if (N < 3) {
    a[0] = -1.0f;
    return;
  }
  for (int t = 0; t < T; t++) {
    relax(N, a, b);
    relax(N, b, a);
  }
}
