// error: 3:23: 'A' is an array of pointers: not supported
// status: unsupported
void k(int N, float *A[4]) {
}
