// error: 3:21: function 'sq' returns 'float': its body must be one return statement (a kernel returns void)
// status: unsupported
float sq(float x) { float y = x; return y * y; }
void k(int N, float A[N]) { }
