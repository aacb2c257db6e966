// Jacobi-like steps on one flat array of two planes whose last row is read only in its first
// half: the array (what the accesses reach) ends some 60 elements before the rows of its view,
// A[2][N][M] (sched/view.c), and a tile's box of the last rows stops at the array's end.
// run: T=0 N=3 M=4
// run: T=1 N=4 M=3
// run: T=3 N=6 M=35
// run: T=9 N=37 M=130
// run: T=14 N=70 M=131
void flat_tail2d(int T, int N, int M, double *A) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        const double *a = A + (t % 2) * N * M;
        double below = i < N - 2 || 2 * j < M ? a[(i + 1) * M + j] : 0.0;
        A[((t + 1) % 2) * N * M + i * M + j] =
            0.25 * (a[(i - 1) * M + j] + below + a[i * M + j - 1] + a[i * M + j + 1]);
      }
}
