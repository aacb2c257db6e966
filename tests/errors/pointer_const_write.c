// error: 5:3: assignment through 'p', a pointer to const
// status: syntax
void k(int N, float A[N]) {
  const float *p = A + 1;
  p[0] = 1.0f;
}
