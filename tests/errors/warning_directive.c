// error: 3:1: preprocessor directive '#warning' is not supported
// status: unsupported
#warning slow
void k(int N, float A[N]) { }
