#include <math.h>
// Max norms in exact mode (sched/reduce.c, zero_signs): fmax of terms that are never -0.0
// (fabs, a square, an exp) gives the same bits in any order, its element first, so the GPU runs
// them in parallel without reassociation. The norms start at -0.0 and some terms are +0.0 (a
// zero of each sign compares equal: fmax returns its second operand). fmax of raw
// differences (a zero of either sign) keeps the C order.
// run: N=1 M=1
// run: N=3 M=40
// run: N=17 M=1000
// run: N=2 M=70001
void red_maxnorm(int N, int M, const double a[N][M], const double b[N][M], double norm[3],
                 float rows[N]) {
  norm[0] = -0.0;
  norm[1] = -0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      double d = j % 3 == 0 ? 0.0 * a[i][j] : a[i][j] - b[i][j];
      norm[0] = fmax(norm[0], fabs(d));
      norm[1] = fmax(norm[1], d * d);
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) norm[2] = fmax(norm[2], j % 3 == 0 ? -0.0 : a[i][j] - b[i][j]);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      rows[i] = fmaxf(rows[i], expf((float)a[i][j]) + sqrtf(fabsf((float)b[i][j])));
}
