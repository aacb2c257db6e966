// A time loop whose one space loop both updates the stencil and accumulates the change (a
// max norm and an integer count), arrays swapped through pointers: that loop is parallel only
// with the accumulations left out (sched/baseline.c, any_parallel), so the time loop runs on
// the host and the space loop in parallel with its reductions, not all in one thread. With
// and without a test of the norm ending the loop early.
// fill: u=-1..1 v=-1..1 p=-1..1 q=-1..1
// run: T=0 N=5 tol=0.3
// run: T=1 N=3 tol=0.3
// run: T=7 N=33 tol=0.3
// run: T=40 N=1000 tol=0.05
// run: T=25 N=4099 tol=0.001
#include <math.h>
void fe_fused_norm_swap(int T, int N, float tol, float *u, float *v, float *p, float *q,
                        float norm[2], int count[2]) {
  float err = 0.0f;
  int big = 0;
  for (int t = 0; t < T; t++) {
    err = 0.0f;
    big = 0;
    for (int i = 1; i < N - 1; i++) {
      v[i] = 0.5f * (u[i - 1] + u[i + 1]);
      err = fmaxf(err, fabsf(v[i] - u[i]));
      big += fabsf(v[i]) > 0.25f;
    }
    float *w = u;
    u = v;
    v = w;
  }
  norm[0] = err;
  count[0] = big;
  float d = 1.0f;
  int s = 0;
  while (s < T && d > tol) {
    d = 0.0f;
    for (int i = 1; i < N - 1; i++) {
      q[i] = 0.25f * p[i - 1] + 0.5f * p[i] + 0.25f * p[i + 1];
      d = fmaxf(d, fabsf(q[i] - p[i]));
    }
    float *w = p;
    p = q;
    q = w;
    s++;
  }
  norm[1] = d;
  count[1] = s;
}
