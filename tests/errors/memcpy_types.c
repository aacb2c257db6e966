// error: 5:3: 'memcpy' copies between arrays of one element type only ('a' and 'b')
// status: unsupported
#include <string.h>
void k(int N, double *a, float *b) {
  memcpy(a, b, N * sizeof(float));
}
