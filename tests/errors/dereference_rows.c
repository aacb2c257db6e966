// error: 4:12: '*' applies to a one-dimensional array here, as *C or *(C + i)
// status: unsupported
void k(int N, float A[N], float C[N][N]) {
  A[0] = *(C + 1)[0];
}
