// error: 4:31: a declaration cannot be the body
// status: syntax
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) float t = 1;
}
