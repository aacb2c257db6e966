// Front end: the preprocessor. Object-like and function-like macros (one calling another,
// arguments that are expressions, a macro naming the element type), #ifndef, #if with
// defined and arithmetic, #elif and #else, #undef, skipped groups holding text that is not C,
// and a definition continued over two lines with a backslash.
// run: T=0 N=5
// run: T=1 N=3
// run: T=4 N=37
// run: T=9 N=200
#include <math.h>
#define REAL float
#define R 1
#define AT(t, i) A[(t) % 2][(i)]
#define AVG3(a, b, c) (((a) + (b) + (c)) / 3.0f)
#ifndef WEIGHT
#define WEIGHT 0.5f
#endif
#if defined(WEIGHT) && R * 2 == 2 && !defined NOTHING
#define SMOOTH(t, i) (WEIGHT * AT(t, i) + (1.0f - WEIGHT) * \
                      AVG3(AT(t, (i) - R), AT(t, i), AT(t, (i) + R)))
#elif R > 1
this group is skipped and is not C: @ 1x $$
#else
#error never taken
#endif
#define TEMP 3
#undef TEMP
#ifdef TEMP
#error TEMP was undefined
#endif
#define SQUARE(x) ((x) * (x))
void fe_macros(int T, int N, REAL A[2][N], double E[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = R; i < N - R; i++) AT(t + 1, i) = SMOOTH(t, i);
    for (int i = 0; i < N; i++) E[i] = E[i] * 0.5 + sqrt(SQUARE((double)AT(t + 1, i)) + 1.0);
  }
}
