// bool (<stdbool.h>) and _Bool: arrays of flags, locals, parameters and results of helpers,
// casts, true and false. A bool is stored as an unsigned char and every conversion to it is
// `!= 0` (C's rule: 0.5 and 256 become 1, where a char would keep 0 or truncate), so the
// kernel writes 0 or 1 wherever C does. A convergence flag in a time loop's test.
// fill: A=-2..2 M=0..3
// run: T=0 N=1
// run: T=1 N=5
// run: T=6 N=37
// run: T=20 N=300
#include <stdbool.h>

static bool positive(double v) {
  return v > 0;
}

static _Bool nonzero(int k) {
  return k;
}

static void mark(int n, const double *a, bool *m, int strict) {
  for (int i = 0; i < n; i++) m[i] = strict ? positive(a[i]) : a[i];
}

void fe_bool(int T, int N, double A[N], unsigned char M[N], bool F[N], bool G[N], double R[3]) {
  bool changed = true;
  int steps = 0;
  for (int t = 0; t < T && changed; t++) {
    changed = false;
    for (int i = 1; i < N - 1; i++) {
      double v = 0.5 * (A[i - 1] + A[i + 1]);
      if (v - A[i] > 1e-3 || A[i] - v > 1e-3) changed = true;
      A[i] = v;
    }
    steps++;
  }
  mark(N, A, F, true);
  for (int i = 0; i < N; i++) {
    int scaled = M[i] * 128;
    G[i] = (bool)scaled; /* 256 and 384: true, not the low byte */
    G[i] = G[i] && nonzero(M[i] - 1);
    double quad = A[i] * 4;
    bool big = quad;   /* 0.3 * 4 = 1.2: true */
    F[i] = F[i] + big; /* 2 is true */
  }
  R[0] = changed;
  R[1] = steps;
  R[2] = (_Bool)0.25;
}
