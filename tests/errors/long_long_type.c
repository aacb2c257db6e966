// error: 3:18: 'long long long' is too long
// status: syntax
void k(long long long N, float A[N]) { }
