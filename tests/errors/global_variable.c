// error: 3:7: global variable 'scale' is not supported
// status: unsupported
float scale = 2;
void k(int N, float A[N]) { }
