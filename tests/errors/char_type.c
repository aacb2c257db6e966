// error: 3:15: type '_Bool' is not supported
// status: unsupported
void k(int N, _Bool A[N]) { }
