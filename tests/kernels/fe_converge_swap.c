// Solvers that swap two arrays until they converge, as they are written: a for, a while and a
// do loop, each ending early where its test of the data fails, the arrays used after it. Which
// array holds the last step follows the steps that ran (a counter of them, jit/parse.c
// steps_counter), not the loop's bound: the sizes end the loops early at both parities, at the
// bound, and before any step (T = 0).
// fill: u=-1..1 v=-1..1 p=-1..1 q=-1..1 a=-1..1 b=-1..1
// run: T=0 N=6 tol=0.3
// run: T=1 N=7 tol=0.3
// run: T=100 N=6 tol=0.3
// run: T=100 N=7 tol=0.3
// run: T=100 N=10 tol=0.3
// run: T=100 N=10 tol=0.05
// run: T=7 N=33 tol=0.001
#include <math.h>
void fe_converge_swap(int T, int N, float tol, float *u, float *v, float *p, float *q, float *a,
                      float *b, float out[3][N], int steps[3]) {
  float err = 1.0f;
  for (int t = 0; t < T && err > tol; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = 0.5f * (u[i - 1] + u[i + 1]);
    err = 0.0f;
    for (int i = 1; i < N - 1; i++) err = fmaxf(err, fabsf(v[i] - u[i]));
    float *w = u;
    u = v;
    v = w;
  }
  for (int i = 0; i < N; i++) out[0][i] = u[i] - 0.5f * v[i];
  int s = 0;
  float e = 1.0f;
  while (s < T && e > tol) {
    for (int i = 1; i < N - 1; i++) q[i] = 0.25f * p[i - 1] + 0.5f * p[i] + 0.25f * p[i + 1];
    e = 0.0f;
    for (int i = 1; i < N - 1; i++) e = fmaxf(e, fabsf(q[i] - p[i]));
    float *w = p;
    p = q;
    q = w;
    s++;
  }
  for (int i = 0; i < N; i++) out[1][i] = p[i];
  steps[0] = s;
  float d;
  int k = 1;
  do {
    for (int i = 1; i < N - 1; i++) b[i] = 0.5f * (a[i - 1] + a[i + 1]);
    d = 0.0f;
    for (int i = 1; i < N - 1; i++) d = fmaxf(d, fabsf(b[i] - a[i]));
    float *w = a;
    a = b;
    b = w;
    k++;
  } while (k <= T && d > tol);
  for (int i = 0; i < N; i++) out[2][i] = a[i] + b[i];
  steps[1] = k;
  steps[2] = s + k;
}
