// error: 5:3: the copy's byte count is negative for these arguments: N=5
// status: args
#include <string.h>
void k(int N, float A[N], const float B[N]) {
  memcpy(A, B, sizeof(float) * (N - 7));
}
