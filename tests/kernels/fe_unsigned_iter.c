#include <stddef.h>
#include <stdint.h>
// Unsigned, size_t, ptrdiff_t and <stdint.h> iterators: counting down through the wrap
// (i < N after i-- from 0), down to 1 with i - 1 in the subscripts, stepping by 2 and 3,
// the iterators' values in the arithmetic (unsigned and long products, conversions), loops
// over variables declared before, and an unsigned condition that wraps.
// run: N=1
// run: N=2
// run: N=7
// run: N=64
// run: N=301
void fe_unsigned_iter(int N, float A[N], float B[N], double C[N], long D[N]) {
  unsigned j;
  long k;
  for (unsigned i = N - 1; i < (unsigned)N; i--)
    A[i] = A[i] * 0.5f + (i + 1 < (unsigned)N ? A[i + 1] : 1.0f);
  for (size_t i = 1; i < (size_t)N; i += 2) B[i] = B[i - 1] * 0.5f + (float)i;
  for (ptrdiff_t i = N - 1; i >= 0; i -= 3) C[i] = C[i] + i * 0.25;
  for (uint32_t i = N; i > 0; i--) B[i - 1] += 1.0f + (float)(i * 2654435761u % 7u);
  for (int64_t i = 0; i < N; i++) D[i] = D[i] * 3 + i * 1000000007L;
  for (j = 0; j < (unsigned)N; j += 2u) A[j] = A[j] + 1.0f;
  for (k = N - 1; k >= 0; k = k - 3) C[k] *= 0.5;
  for (unsigned i = 0; i < (unsigned)N; i++)
    if (i - 1 < 3u) B[i] += 2.0f; /* i = 0 wraps: not taken */
}
