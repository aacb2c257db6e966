// `assert` on the sizes, as C programs check their arguments (<assert.h>): conditions over
// the integer parameters and enumeration constants, with && and %, checked for each shape
// before anything runs (jit/compile.c, check_asserts; the reference's assert evaluates the
// condition and holds). tests/model_errors/assert_fails.c fails one.
// run: N=3 M=1
// run: N=12 M=4
// run: N=300 M=30
#include <assert.h>
enum { R = 1 };
void fe_assert(int N, int M, double a[N], double b[N]) {
  assert(N >= 2 * R + 1);
  assert(M > 0 && N % M == 0);
  for (int i = R; i < N - R; i++) b[i] = a[i - R] + a[i + R] * (N / M);
  assert(N / M >= 1 || M > N);
}
