// A do loop that swaps two arrays through local pointers, with the arrays and its counter used
// after it (jit/parse.c, iterations): the body runs once even where its condition fails at once
// (T < 1), so the names after the loop hold the arrays of that count's parity.
// fill: A=-1..1 B=-1..1
// run: T=0 N=5 M=6
// run: T=1 N=3 M=3
// run: T=2 N=9 M=17
// run: T=3 N=16 M=16
// run: T=8 N=40 M=33
void fe_do_while_swap(int T, int N, int M, float A[N][M], float B[N][M], float R[N][M],
                      int last[1]) {
  float(*cur)[M] = A;
  float(*nxt)[M] = B;
  int t = 1;
  do {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        nxt[i][j] = 0.25f * cur[i][j] + 0.125f * (cur[i - 1][j] + cur[i + 1][j] + cur[i][j - 1] +
                                                   cur[i][j + 1]);
    float(*w)[M] = cur;
    cur = nxt;
    nxt = w;
    t++;
  } while (t <= T);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) R[i][j] = cur[i][j] - 0.5f * nxt[i][j];
  last[0] = t;
}
