// Jacobi-2d on flat pointers, as C code often passes arrays: A[i * M + j], a macro for the
// subscript, restrict and const qualifiers. The arrays' sizes are what the accesses reach.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=2 N=5 M=3
// run: T=7 N=33 M=40
// run: T=12 N=130 M=67
#define AT(a, i, j) a[(i) * M + (j)]
void ptr_flat2d(int T, int N, int M, float *restrict A, float *restrict B) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        AT(B, i, j) = 0.2f * (AT(A, i, j) + AT(A, i - 1, j) + AT(A, i + 1, j) + AT(A, i, j - 1) +
                              AT(A, i, j + 1));
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        AT(A, i, j) = AT(B, i, j);
  }
}
