// Several statements with dependences between them inside one nest and across nests
// (folding and fusion must keep C order).
// run: T=0 N=4
// run: T=1 N=3
// run: T=2 N=33
// run: T=5 N=129
// run: T=10 N=4096
void multi_stmt(int T, int N, float A[N], float B[N], float C[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) {
      B[i] = 0.5f * (A[i - 1] + A[i + 1]);
      C[i] = B[i] - C[i - 1] * 0.25f;
    }
    for (int i = 1; i < N - 1; i++) A[i] = B[i] + 0.125f * C[i];
  }
}
