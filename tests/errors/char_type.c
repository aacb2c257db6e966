// error: 3:15: type 'char' is not supported
// status: unsupported
void k(int N, char A[N]) { }
