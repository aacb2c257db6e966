// Solvers that loop while an integer flag or count the body sets says the data still move
// (jit/parse.c, flags_to_data: a condition's local that the body assigns is a test of the
// data), and the flags as reductions (sched/reduce.c): `if (d > tol) changed = 1;` sets a
// constant where its guard holds (any order stores the same bits), `|=`, `&=` and `^` combine
// integer bits, `+=` counts; a float set to a constant too. Early at both parities, at the
// bound, before any step (T = 0), and over many blocks.
// fill: u=-1..1 v=-1..1 p=-1..1 q=-1..1 a=-1..1
// run: T=0 N=6 tol=0.3
// run: T=1 N=7 tol=0.3
// run: T=100 N=6 tol=0.3
// run: T=100 N=7 tol=0.05
// run: T=100 N=40 tol=0.01
// run: T=9 N=5000 tol=0.001
// run: T=60 N=5003 tol=0.02
#include <math.h>
void fe_converge_flag(int T, int N, float tol, float *u, float *v, float *p, float *q, float *a,
                      int out[8], float hit[1]) {
  int changed = 1, t = 0;
  while (t < T && changed) {
    changed = 0;
    for (int i = 1; i < N - 1; i++) {
      v[i] = 0.5f * (u[i - 1] + u[i + 1]);
      if (fabsf(v[i] - u[i]) > tol) changed = 1;
    }
    float *w = u;
    u = v;
    v = w;
    t++;
  }
  out[0] = t;
  int moving = N, s;
  for (s = 0; s < T && moving > 0; s++) {
    moving = 0;
    for (int i = 1; i < N - 1; i++) {
      q[i] = 0.25f * p[i - 1] + 0.5f * p[i] + 0.25f * p[i + 1];
      moving += fabsf(q[i] - p[i]) > tol;
    }
    for (int i = 1; i < N - 1; i++) p[i] = q[i];
  }
  out[1] = s;
  out[2] = moving;
  int done = 0, k = 0;
  do {
    int still = 0, all = 1, parity = 0;
    for (int i = 1; i < N - 1; i++) {
      a[i] = 0.5f * a[i] + 0.25f * (a[i - 1] + a[i + 1]);
      still |= fabsf(a[i]) > tol;
      all &= a[i] > -0.5f;
      parity = parity ^ (a[i] > 0.0f);
    }
    done = !still;
    out[3] += all;
    out[4] ^= parity;
    k++;
  } while (k < T && !done);
  out[5] = k;
  out[6] = done;
  hit[0] = 0.0f;
  for (int i = 0; i < N; i++)
    if (u[i] > 0.5f) hit[0] = 2.5f;
  out[7] = changed;
}
