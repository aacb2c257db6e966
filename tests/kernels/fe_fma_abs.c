// fma and copysign (exact on every device: one rounding at the function's own type), and the
// integer abs of <stdlib.h>, in a time-tiled update.
// fill: E=-1000..1000
// run: T=0 N=3
// run: T=1 N=5
// run: T=7 N=100
// run: T=20 N=700
#include <math.h>
#include <stdlib.h>
void fe_fma_abs(int T, int N, float A[2][N], double D[N], int E[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      A[(t + 1) % 2][i] = fmaf(A[t % 2][i - 1], 0.3f, A[t % 2][i + 1] * 0.6f) +
                          copysignf(0.01f, A[t % 2][i] - 0.5f);
      D[i] = fma(D[i], 0.999, -1e-3) + copysign(1e-6, (double)A[t % 2][i]);
      E[i] = abs(E[i] - i) % 1000 - (int)labs((long)i - N / 2) % 7;
    }
}
