// error: 4:5: array index has type 'float'
// status: syntax
void k(int N, float A[N], float x) {
  A[x] = 0;
}
