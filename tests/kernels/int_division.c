// Integer division and remainder by divisors that are never zero but not constants: the
// generated code checks them at run time and computes C's truncating results.
// fill: A=-50..50
// run: N=1 M=1
// run: N=5 M=3
// run: N=40 M=33
void int_division(int N, int M, const int A[N][M], int Q[N][M], long R[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      Q[i][j] = A[i][j] / (i + 1) - A[i][j] % (M - j) + (A[i][j] - 7) / (j - M - 1);
      R[i][j] = (long)A[i][j] * 1000003L % (long)(N + M - i - j) + (i - 20) / (j + 2);
    }
}
