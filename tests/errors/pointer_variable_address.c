// error: 5:16: the address 'p' takes may not depend on a variable that can change while it lives (a const local, an iterator or a parameter may)
// status: unsupported
void k(int N, float A[N]) {
  int k = 2;
  float *p = A + k;
  p[0] = 1.0f;
}
