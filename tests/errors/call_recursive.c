// error: 5:3: recursive calls ('down') are not supported
// status: unsupported
void down(int N, float A[N]) {
  for (int i = 0; i < N; i++) A[i] = 0.5f * A[i];
  down(N, A);
}
void k(int N, float A[N]) {
  down(N, A);
}
