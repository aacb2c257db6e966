// Local pointers that name the arrays (cur, nxt), written through before the time loop and
// swapped at the end of each step, with boundary values set in the step.
// fill: init=-1..1
// run: T=0 N=3
// run: T=1 N=4
// run: T=2 N=17
// run: T=9 N=300
void fe_swap_alias(int T, int N, const float *init, float *A, float *B) {
  float *cur = A;
  float *nxt = B;
  for (int i = 0; i < N; i++) cur[i] = init[i];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      nxt[i] = 0.25f * cur[i - 1] + 0.5f * cur[i] + 0.25f * cur[i + 1];
    nxt[0] = cur[0];
    nxt[N - 1] = cur[N - 1];
    float *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
}
