// A flat array read across the ends of its rows: B[i * M + j] from A[i * M + j + 1] for every
// j < M, so the last column reads the next row's first element. No rows fit every access (j + 1
// leaves [0, M)): the model keeps the array flat, and the results are C's.
// run: T=0 N=2 M=3
// run: T=1 N=2 M=3
// run: T=4 N=9 M=7
// run: T=6 N=40 M=33
void flat_wrap(int T, int N, int M, float *A, float *B) {
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N - 1; i++)
      for (int j = 0; j < M; j++) B[i * M + j] = 0.5f * (A[i * M + j] + A[i * M + j + 1]);
    for (int i = 0; i < N - 1; i++)
      for (int j = 0; j < M; j++) A[i * M + j] = B[i * M + j];
  }
}
