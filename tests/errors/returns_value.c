// error: 3:1: function 'k' returns 'float': a kernel must return void
// status: unsupported
float k(int N, float A[N]) { }
