// A time step written as a void function the time loop calls twice, swapping the roles of
// the two arrays (its body is inlined at each call; the reference calls it).
// fill: a=-1..1 b=-1..1
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=17
// run: T=7 N=300
static void step(int n, const float *in, float *out) {
  for (int i = 1; i < n - 1; i++)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

void fe_call_step(int T, int N, float *a, float *b) {
  for (int t = 0; t < T; t++) {
    step(N, a, b);
    step(N, b, a);
  }
}
