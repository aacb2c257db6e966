#include <math.h>
// Reductions under a data if (sched/reduce.c, guarded): the if becomes x = g ? x op e : x (or
// x = g ? x : x op e for its else branch), and where g does not read x the terms where g fails
// are the operation's identity, so the loop still reduces in parallel: integer sums into two
// elements from the two branches, and a max norm over the elements a mask keeps, in exact mode.
// fill: mask=0..3 v=-1000..1000
// run: N=1
// run: N=37
// run: N=5000
// run: N=70001
void red_guarded(int N, const int mask[N], const int v[N], const double a[N], long sums[2],
                 double hi[1]) {
  for (int i = 0; i < N; i++) {
    if (mask[i] > 1)
      sums[0] += v[i];
    else
      sums[1] -= v[i];
  }
  for (int i = 0; i < N; i++)
    if (mask[i] != 2) hi[0] = fmax(hi[0], fabs(a[i]));
}
