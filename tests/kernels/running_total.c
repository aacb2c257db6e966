// Accumulations that are no reductions (issue 11): each row's running total is stored at
// every step (the statement reads the accumulated element again), and each column's total,
// started from the previous column's, is copied on the diagonal while it grows (another
// statement reads the partial total inside the loop over i). Reassociating either would
// change what is stored: the explanation must not list them as reductions, and on every
// device the results are bit-identical to the C function's.
// run: N=1 M=1
// run: N=3 M=5
// run: N=33 M=97
// run: N=64 M=128
void running_total(int N, int M, const float A[N][M], float s[N], float P[N][M], float c[M],
                   float D[M]) {
  for (int i = 0; i < N; i++) {
    s[i] = 0.0f;
    for (int j = 0; j < M; j++) {
      s[i] += A[i][j];
      P[i][j] = s[i];
    }
  }
  c[0] = 0.0f;
  for (int j = 1; j < M; j++) {
    c[j] = c[j - 1];
    for (int i = 0; i < N; i++) {
      c[j] += A[i][j];
      if (i == j) D[j] = c[j];
    }
  }
}
