// error: 3:13: type 'long long' is not supported
// status: unsupported
void k(long long N, float A[N]) { }
