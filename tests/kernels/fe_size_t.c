// C as it is often written: size_t and unsigned sizes, a flat pointer with i * m + j
// subscripts, <math.h> included, a final `return;`.
// run: n=1 m=1
// run: n=3 m=5
// run: n=40 m=13
// run: n=100 m=257
#include <math.h>
#include <stddef.h>
void fe_size_t(size_t n, unsigned m, float *a, const float *b) {
  for (size_t i = 0; i < n; ++i)
    for (unsigned j = 0; j < m; j++)
      a[i * m + j] = sqrtf(fabsf(b[i * m + j])) + (float)(i % 3) - (float)(j >> 2);
  return;
}
