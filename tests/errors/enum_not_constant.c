// error: 4:17: the value of enumeration constant 'HALF' must be an integer constant expression of literals and + - *
// status: unsupported
void k(int N, float A[N]) {
  enum { HALF = N / 2 };
  for (int i = 0; i < HALF; i++) A[i] = 0;
}
