// error: 6:11: redeclaration of 't' (declared at 5:11)
// status: syntax
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    float t = A[i];
    float t = 2;
  }
}
