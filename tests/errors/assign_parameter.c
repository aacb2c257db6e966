// error: 4:3: assignment to parameter 'N'
// status: unsupported
void k(int N, float A[N]) {
  N = 3;
}
