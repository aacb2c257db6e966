// error: 4:11: pointer dereference '*' applies to an array here: *a, *(a + i)
// status: unsupported
void k(int N, float A[N], float C[N][N]) {
  A[0] = **C;
}
