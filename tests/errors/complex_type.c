// error: 3:15: type '_Complex' is not supported
// status: unsupported
void k(int N, _Complex A[N]) { }
