// A do loop that swaps two arrays until it converges or reaches its bound, the arrays used after
// it: which one holds the last step depends on how many steps ran, which the data decides
// (bounds of both parities, and a body that runs once where the bound is below 1).
// run: T=0 N=6
// run: T=1 N=7
// run: T=2 N=10
// run: T=100 N=6
// run: T=1000 N=7
// run: T=3001 N=10
#include <math.h>
void fe_do_converge_swap(int T, int N, float *u, float *v, float *out, float err[1]) {
  int t = 0;
  do {
    for (int i = 1; i < N - 1; i++) v[i] = 0.5f * (u[i - 1] + u[i + 1]);
    err[0] = 0.0f;
    for (int i = 1; i < N - 1; i++) err[0] = fmaxf(err[0], fabsf(v[i] - u[i]));
    float *w = u;
    u = v;
    v = w;
    t++;
  } while (t < T && err[0] > 0.01f);
  for (int i = 0; i < N; i++) out[i] = u[i] - v[i];
}
