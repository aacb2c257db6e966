// error: 3:8: type 'unsigned' is not supported
// status: unsupported
void k(unsigned N, float A[N]) { }
