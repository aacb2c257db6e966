// error: 5:3: memset's byte count is negative for these arguments: N=5
// status: args
#include <string.h>
void k(int N, float A[N], float B[N]) {
  memset(B + 1, 0, (N - 6) * sizeof(float));
  for (int i = 0; i < N; i++) A[i] = B[i];
}
