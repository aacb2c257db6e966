// Row-wise float prefix sums: the inner loop is sequential, the outer one parallel; the
// float additions must happen in exactly the C order.
// run: N=1 M=1
// run: N=3 M=3
// run: N=33 M=100
// run: N=129 M=129
// run: N=256 M=256
void prefix_sum_rows(int N, int M, float A[N][M]) {
  for (int i = 0; i < N; i++)
    for (int j = 1; j < M; j++) A[i][j] += A[i][j - 1];
}
