// Variables declared beside a for loop's iterator and stepped with it (jit/parse.c,
// companion_value): a reversal, an in-place swap of the halves from both ends (the condition
// reads the companion), a pairwise sum counting by 2 beside a step of 1, a bound computed once,
// an unsigned companion counting down, and a time loop with one.
// fill: A=-9..9 B=-9..9 U=0..100
// run: T=0 N=1
// run: T=1 N=2
// run: T=2 N=7
// run: T=5 N=64
// run: T=3 N=301
void fe_for_companions(int T, int N, float A[N], float B[N], float C[N], unsigned U[N],
                       float H[2][N]) {
  for (int i = 0, j = N - 1; i < N; i++, j--) B[i] = A[j] * 0.5f + B[i];
  for (int i = 0, j = N - 1; i < j; ++i, --j) {
    float x = A[i];
    A[i] = A[j];
    A[j] = x;
  }
  for (int i = 0, k = 0; i + 1 < N; i += 2, k++) C[k] = A[i] + A[i + 1];
  for (int i = 0, m = N / 2; i < m; i++) C[N - 1 - i] = B[i];
  for (unsigned i = 0, d = N - 1u; i < (unsigned)N; i++, d -= 1) U[i] = U[i] * 3u + d;
  for (int t = 0, s = 1; t < T; t++, s += 2)
    for (int i = 1; i < N - 1; i++)
      H[(t + 1) % 2][i] = 0.25f * (H[t % 2][i - 1] + H[t % 2][i + 1]) + 0.001f * (float)s;
}
