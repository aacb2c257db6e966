// error: 4:7: redeclaration of 'N'
// status: syntax
void k(int N, float A[N]) {
  int N = 2;
}
