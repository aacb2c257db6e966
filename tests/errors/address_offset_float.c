// error: 5:11: pointer offset has type 'float', not an integer type
// status: syntax
static void set(float *p) { p[0] = 1.0f; }
void k(int N, float A[N]) {
  set(A + 1.5f);
}
