#include <stddef.h>
// A 1-D stencil with unsigned iterators: a size_t time loop (its (t + 1) % 2 in unsigned
// arithmetic) and an unsigned space loop, time-tiled like the int one.
// run: T=0 N=3
// run: T=1 N=2
// run: T=2 N=3
// run: T=7 N=45
// run: T=12 N=200
void fe_unsigned_time(int T, int N, float A[2][N]) {
  for (size_t t = 0; t < (size_t)T; t++)
    for (unsigned i = 1; i + 1 < (unsigned)N; i++)
      A[(t + 1) % 2][i] = 0.25f * A[t % 2][i - 1] + 0.5f * A[t % 2][i] + 0.25f * A[t % 2][i + 1];
}
