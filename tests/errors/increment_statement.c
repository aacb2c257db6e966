// error: 4:31: '++' is only supported as the increment of a for loop
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) A[i]++;
}
