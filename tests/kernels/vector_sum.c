#include <math.h>
// Reductions of a whole vector into one element (issue 11): a float sum, a double dot
// product and a float minimum. Exact mode keeps the C order: no loop is parallel, one GPU
// thread accumulates, and the results are bit-identical to the C function's (any other
// order of the float additions would round differently on these random inputs).
// run: N=1
// run: N=2
// run: N=33
// run: N=256
// run: N=4099
// reassociate: terms=N+1 expect=parallel
void vector_sum(int N, const float x[N], const double y[N], float sum[1], double dot[1],
                float low[1]) {
  sum[0] = 0.0f;
  dot[0] = 0.0;
  low[0] = x[0];
  for (int i = 0; i < N; i++) {
    sum[0] += x[i];
    dot[0] += x[i] * y[i];
    low[0] = fminf(low[0], x[i]);
  }
}
