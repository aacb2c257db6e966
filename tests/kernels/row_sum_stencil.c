// A Jacobi step and a sum of one column into S[i] in each time step: the sum writes a 1-D
// array, which says no place in the 2-D stencil's space, so it sits where it reads, at (i, 1)
// (sched/place.c). At (0, i), its default, it read a column 198 points away along s0 in a
// step at N=200: hybrid tiling refused it ('w0 = 64 is too narrow').
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=4
// run: T=5 N=17
// run: T=13 N=70
// run: T=8 N=200
void row_sum_stencil(int T, int N, float A[2][N][N], float S[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        A[(t + 1) % 2][i][j] = 0.25f * (A[t % 2][i - 1][j] + A[t % 2][i + 1][j] +
                                        A[t % 2][i][j - 1] + A[t % 2][i][j + 1]);
    for (int i = 1; i < N - 1; i++) S[i] += A[(t + 1) % 2][i][1];
  }
}
