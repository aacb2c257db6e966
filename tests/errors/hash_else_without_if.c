// error: 4:1: #else without #if
// status: syntax
void k(int N, float A[N]) { }
#else
