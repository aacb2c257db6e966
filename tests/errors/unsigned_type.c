// error: 3:8: scalar parameter 'N' has type 'unsigned int': scalar parameters must be int
// status: unsupported
void k(unsigned N, float A[N]) { }
