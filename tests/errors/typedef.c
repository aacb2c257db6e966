// error: 3:1: 'typedef' is not supported
// status: unsupported
typedef float real;
void k(int N, float A[N]) { }
