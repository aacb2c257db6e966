// error: 5:3: expected ';', found 'A'
// status: syntax
void k(int N, float A[N]) {
  float t = 1
  A[0] = t;
}
