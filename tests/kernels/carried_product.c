// A product of a value a loop carries to its next iteration in one register (astgen/promote.c:
// A[i-1][j-1] is the last iteration's A[i][j] along the diagonal a thread runs down), added
// after the load that carries the next value: the PTX printer's mad.lo must not take the
// product past that load (random kernel 46063). The copy back and the statement after the
// time loop keep the nest out of stencil form (isl's schedule, diagonals over the threads);
// the mask keeps the sums from overflowing.
// run: T=0 N=5 M=4
// run: T=1 N=5 M=4
// run: T=1 N=3 M=3
// run: T=2 N=16 M=4
// run: T=3 N=9 M=7
// run: T=21 N=16 M=4
void carried_product(int T, int N, int M, int *restrict A, int *restrict B, int steps[1]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        B[i * M + j] = (2 * A[(i - 1) * M + j - 1] + A[i * M + j]) & 65535;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[i * M + j] = B[i * M + j];
  }
  steps[0] = T;
}
