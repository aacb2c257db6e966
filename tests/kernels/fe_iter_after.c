// For loops counting with an iterator declared before them, read after the loop: C leaves it
// the value that failed the condition (jit/parse.c, for_loop and revive_counter). To its bound,
// counting down by 2 on a loop of one statement, to a bound kept in a local, twice in a row (the
// second loop's value is what the use reads), after a use as a local before the loop, and ending
// early on a test of the data with arrays swapped, at both parities and before any step (T = 0).
// fill: u=-1..1 v=-1..1 a=-1..1
// run: T=0 N=6 tol=0.3
// run: T=1 N=7 tol=0.3
// run: T=5 N=3 tol=0.3
// run: T=100 N=6 tol=0.3
// run: T=100 N=7 tol=0.3
// run: T=100 N=10 tol=0.05
// run: T=9 N=33 tol=0.001
#include <math.h>
void fe_iter_after(int T, int N, float tol, float *u, float *v, float *a, int last[7]) {
  int t, k, j;
  for (t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) a[i] = 0.5f * (a[i - 1] + a[i + 1]);
  last[0] = t;
  for (k = T; k > 0; k -= 2) a[0] += a[N - 1];
  last[1] = k;
  int n = N - 2;
  for (j = 1; j < n; j++) a[j] = a[j] * 0.5f + a[j + 1];
  last[2] = j;
  for (j = 0; j < T; j++) a[N - 1] -= 0.25f;
  for (j = 2; j <= N; j++) a[j - 1] += 1.0f;
  last[3] = j;
  float err = 1.0f;
  int s;
  for (s = 0; s < T && err > tol; s++) {
    for (int i = 1; i < N - 1; i++) v[i] = 0.5f * (u[i - 1] + u[i + 1]);
    err = 0.0f;
    for (int i = 1; i < N - 1; i++) err = fmaxf(err, fabsf(v[i] - u[i]));
    float *w = u;
    u = v;
    v = w;
  }
  last[4] = s;
  for (int i = 0; i < N; i++) a[i] += u[i] - 0.5f * v[i];
  last[5] = s + t;
  int m = N / 2;
  a[0] += (float)m;
  for (m = 1; m < N; m++) a[m] -= a[m - 1] * 0.125f;
  last[6] = m;
}
