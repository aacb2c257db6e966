// error: 5:3: function 'f' returns a value: it may assign only its own scalar parameters and locals
// status: unsupported
static const float scale = 2;
float f(float x) {
  scale = x;
  return x;
}
void k(int N, float A[N]) { }
