// error: 3:34: function 'sq' returns 'float': its body may hold locals, assignments to them and to its parameters, 'if' and 'else', and returns (no loops; a kernel returns void)
// status: unsupported
float sq(float x) { float y = x; for (int i = 0; i < 2; i++) y = y * x; return y; }
void k(int N, float A[N]) { }
