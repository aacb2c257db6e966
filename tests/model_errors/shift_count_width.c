// error: 4:45: shift count 32 is outside the width of 'int'
// status: args
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) B[i] = A[i << 32];
}
