// error: 3:30: function 'k' returns 'float': its body may hold locals with initializers, 'if (c) return e;' and a final 'return e;' (a kernel returns void)
// status: unsupported
float k(int N, float A[N]) { }
