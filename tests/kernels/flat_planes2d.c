// Jacobi-2d on one flat array holding both planes, indexed by hand as C code often does:
// A[(t % 2) * N * M + i * M + j]. The model sees it in rows, A[2][N][M] (sched/view.c); the
// array holds what the accesses reach, one element short of the rows (the last plane's last
// corner is never read), so a tile's box of the last rows copies in only what the array has.
// run: T=0 N=3 M=3
// run: T=1 N=3 M=4
// run: T=2 N=3 M=3
// run: T=3 N=5 M=34
// run: T=8 N=40 M=33
// run: T=13 N=67 M=130
void flat_planes2d(int T, int N, int M, float *A) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        A[((t + 1) % 2) * N * M + i * M + j] =
            0.2f * (A[(t % 2) * N * M + i * M + j] + A[(t % 2) * N * M + (i - 1) * M + j] +
                    A[(t % 2) * N * M + (i + 1) * M + j] + A[(t % 2) * N * M + i * M + j - 1] +
                    A[(t % 2) * N * M + i * M + j + 1]);
}
