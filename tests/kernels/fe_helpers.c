#include <math.h>
// Front end: functions that return a value, inlined at each call: a float average, one that
// calls another and the math library (the kernel's math calls include the helper's), an int
// helper in a subscript (periodic wrap: the index stays affine), a double parameter given a
// float argument and an int one (C's conversions at the call).
// run: T=0 N=4
// run: T=1 N=1
// run: T=2 N=3
// run: T=6 N=50
static inline float avg3(float a, float b, float c) { return (a + b + c) / 3.0f; }
static float smooth(float l, float m, float r) { return sqrtf(fabsf(avg3(l, m, r))) + 0.5f * m; }
static int wrap(int i, int n) { return (i + n) % n; }
double scale(double x, double by) { return x * by; }
void fe_helpers(int T, int N, float A[2][N], double B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N; i++)
      A[(t + 1) % 2][i] = smooth(A[t % 2][wrap(i - 1, N)], A[t % 2][i], A[t % 2][wrap(i + 1, N)]);
    for (int i = 0; i < N; i++) B[i] = scale(A[(t + 1) % 2][i], i) + scale(B[i], 0.25f);
  }
}
