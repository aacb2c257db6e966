// error: 5:3: the byte count of a copy must be a product with sizeof, of whole elements of type 'double' (n * sizeof(double))
// status: unsupported
#include <string.h>
void k(int N, double *a, double *b) {
  memcpy(a, b, 8 * N);
}
