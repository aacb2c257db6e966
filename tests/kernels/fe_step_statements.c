// Front end: x++, ++x, x-- and --x as statements of their own (x = x + 1 with C's conversions:
// a float adds 1.0f, an unsigned wraps): on elements, on a count a guard steps (a reduction),
// on a local carried along a row, and in a while loop beside its counter's own step; (void)x;
// does nothing.
// fill: A=-2..2 U=0..4294967295
// run: T=0 N=1 M=1
// run: T=1 N=3 M=2
// run: T=3 N=33 M=17
// run: T=2 N=130 M=65
void fe_step_statements(int T, int N, int M, float A[N][M], double B[N], unsigned U[N],
                        int C[2], long D[N], float unused[1]) {
  (void)unused;
  for (int i = 0; i < N; i++) {
    B[i]--;
    --U[i];
    for (int j = 0; j < M; j++) {
      A[i][j]++;
      if (A[i][j] > 1.5f) C[0]++;
      if (A[i][j] < 0.5f) --C[1];
    }
  }
  for (int i = 0; i < N; i++) {
    long run = 0;
    for (int j = 0; j < M; j++) {
      if (A[i][j] > 0) run++;
      else run--;
      ++B[i];
    }
    D[i] = run;
  }
  int t = 0;
  while (t < T) {
    for (int i = 1; i < N; i++) ++A[i][0];
    t++;
  }
}
