// Integer division and modulo of indices in subscripts: a coarse-to-fine interpolation
// inside a time loop (A[i / 2], A[(i + 1) / 2], i % 2 as a value).
// run: T=0 N=4
// run: T=1 N=1
// run: T=2 N=2
// run: T=3 N=7
// run: T=4 N=100
void index_divmod(int T, int N, float C[N], float F[2 * N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < 2 * N - 1; i++)
      F[i] = (i % 2 == 0) ? C[i / 2] : 0.5f * (C[i / 2] + C[(i + 1) / 2]);
    for (int i = 0; i < N; i++) C[i] = 0.5f * (F[2 * i] + F[2 * i + 1]) + 0.01f * (float)(i % 3);
  }
}
