// error: 4:11: address-of operator '&' is supported on an array element passed to a function
// status: unsupported
void k(int N, float A[N], float x) {
  A[0] = (&x)[0];
}
