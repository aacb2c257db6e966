// Input of the cli_size_t_bound test: for N = 1, N - 2 converted to size_t is 2^64 - 1, so
// C's loop runs past the array; the model computes the conversion as C does and refuses.
#include <stddef.h>
void size_t_bound(int N, float A[N]) {
  for (size_t i = 0; i < N - 2; i++) A[i] = 1.0f;
}
