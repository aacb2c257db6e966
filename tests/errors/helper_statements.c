// error: 3:34: function 'sq' returns 'float': its body may hold locals with initializers, 'if (c) return e;' and a final 'return e;'
// status: unsupported
float sq(float x) { float y = x; y = y * y; return y; }
void k(int N, float A[N]) { }
