// error: 3:1: function 'k' returns 'float': a kernel must return void, and a function that returns a value takes scalars ('A' is an array)
// status: unsupported
float k(int N, float A[N]) { }
