// error: 3:8: scalar parameter 'N' has type 'short': scalar parameters must be int, long, their unsigned forms
// status: unsupported
void k(short N, float A[N]) { }
