// error: 5:3: 'memmove' within one array at an address is not supported (its parts may overlap)
// status: unsupported
#include <string.h>
void k(int N, double *a, double *b) {
  memmove(a + 1, a, (N - 2) * sizeof(double));
}
