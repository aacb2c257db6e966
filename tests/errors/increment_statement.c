// error: 4:45: '++' is only supported as a statement of its own (x++;) or a for loop's increment
// status: unsupported
void k(int N, float A[N], float B[N]) {
  for (int i = 0; i < N; i++) A[i] = B[i] + B[i]++;
}
