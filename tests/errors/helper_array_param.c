// error: 3:1: function 'first' returns 'float': a kernel must return void, and a function that returns a value takes scalars ('A' is an array)
// status: unsupported
float first(int N, float A[N]) { return A[0]; }
void k(int N, float A[N]) { }
