// error: 5:3: assertion fails for these arguments: N=5
// status: args
#include <assert.h>
void k(int N, float A[N]) {
  assert(N % 2 == 0);
  for (int i = 0; i < N; i++) A[i] = 0;
}
