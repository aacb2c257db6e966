// error: 6:7: address-of operator '&' is supported on an array element passed to a function (&A[i], &A[i][0])
// status: unsupported
static void set(float *p) { p[0] = 1.0f; }
void k(int N, float A[N]) {
  float x = 0;
  set(&x);
  A[0] = x;
}
