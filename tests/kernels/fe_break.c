// Loops that end at a `break` (jit/parse.c, break_statement): a flag set under the if, the
// rest of the body guarded as after a `continue`, the flag a test of the data in the loop's
// condition. A search, a solver whose time loop breaks on its change (for, while and do, the
// counter read after the loop: C's value where it broke, no step), a break inside an inner
// loop of a time loop, and sizes where nothing breaks, at once, or before any step.
// fill: A=-1..1 u=-1..1 v=-1..1 p=-1..1 q=-1..1
// run: T=0 N=4 tol=0.3
// run: T=1 N=5 tol=0.3
// run: T=50 N=6 tol=0.3
// run: T=50 N=9 tol=0.05
// run: T=100 N=40 tol=0.01
// run: T=8 N=1000 tol=0.0001
#include <math.h>
void fe_break(int T, int N, float tol, float *A, float *u, float *v, float *p, float *q,
              int out[6]) {
  int i;
  for (i = 0; i < N; i++) {
    if (A[i] > 0.9f) break;
    A[i] = 2.0f * A[i];
  }
  out[0] = i;
  int t;
  for (t = 0; t < T; t++) {
    float d = 0.0f;
    for (int k = 1; k < N - 1; k++) {
      v[k] = 0.5f * (u[k - 1] + u[k + 1]);
      d = fmaxf(d, fabsf(v[k] - u[k]));
    }
    if (d < tol) break;
    for (int k = 1; k < N - 1; k++) u[k] = v[k];
  }
  out[1] = t;
  int s = 0;
  while (s < T) {
    float e = 0.0f;
    for (int k = 1; k < N - 1; k++) {
      q[k] = 0.25f * p[k - 1] + 0.5f * p[k] + 0.25f * p[k + 1];
      e = fmaxf(e, fabsf(q[k] - p[k]));
    }
    for (int k = 1; k < N - 1; k++) p[k] = q[k];
    if (e < tol) {
      out[2] = 1;
      break;
    }
    s++;
  }
  out[3] = s;
  int r = 0;
  do {
    int j;
    for (j = 1; j < N; j++)
      if (p[j] < p[j - 1] - 0.5f) break;
    out[4] += j;
    if ((r + 1) * tol > 0.5f) break;
    p[1] += 0.125f;
    r++;
  } while (r < T);
  out[5] = r;
}
