// error: 4:19: for loop without a condition
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; ; i++) A[i] = 0;
}
