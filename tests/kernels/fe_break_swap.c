// Solvers that swap two arrays and break on their change before the swap, the arrays used after
// the loop: the step the break ends does not swap, so the names hold the arrays of the steps
// that finished (jit/parse.c, finish_after: the steps counted less the break's flag). A for
// loop and a while loop, breaking at both parities, at the bound and before any step.
// fill: u=-1..1 v=-1..1 p=-1..1 q=-1..1
// run: T=0 N=5 tol=0.3
// run: T=1 N=5 tol=0.3
// run: T=50 N=5 tol=0.3
// run: T=50 N=8 tol=0.05
// run: T=50 N=5 tol=0.001
// run: T=7 N=40 tol=0.001
// run: T=30 N=700 tol=0.01
#include <math.h>
void fe_break_swap(int T, int N, float tol, float *u, float *v, float *p, float *q, float out[2][N],
                   int steps[2]) {
  int t;
  for (t = 0; t < T; t++) {
    float d = 0.0f;
    for (int k = 1; k < N - 1; k++) {
      v[k] = 0.5f * (u[k - 1] + u[k + 1]);
      d = fmaxf(d, fabsf(v[k] - u[k]));
    }
    if (d < tol) break;
    float *w = u;
    u = v;
    v = w;
  }
  for (int i = 0; i < N; i++) out[0][i] = u[i] - 0.5f * v[i];
  steps[0] = t;
  int s = 0;
  while (s < T) {
    float e = 0.0f;
    for (int k = 1; k < N - 1; k++) {
      q[k] = 0.25f * p[k - 1] + 0.5f * p[k] + 0.25f * p[k + 1];
      e = fmaxf(e, fabsf(q[k] - p[k]));
    }
    if (e < tol) break;
    float *w = p;
    p = q;
    q = w;
    s++;
  }
  for (int i = 0; i < N; i++) out[1][i] = p[i] + q[i];
  steps[1] = s;
}
