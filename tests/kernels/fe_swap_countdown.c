// Three arrays rotated through pointers in a time loop that counts down an unsigned iterator by
// two: the step's place in the rotation is (init - t) / 2 % 3, never below zero.
// run: T=0 N=5
// run: T=1 N=8
// run: T=2 N=40
// run: T=5 N=100
void fe_swap_countdown(unsigned T, int N, float *u, float *v, float *x) {
  for (unsigned t = 2 * T + 1; t > 1; t -= 2) {
    for (int i = 1; i < N - 1; i++) v[i] = 0.5f * (u[i - 1] + u[i + 1]) + 0.01f * (float)t;
    float *w = u;
    u = v;
    v = x;
    x = w;
  }
}
