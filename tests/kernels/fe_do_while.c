// A do loop counting down by two, its counter declared before a statement of its own and set
// just before the loop: the body runs once even when the condition fails at once (T <= 0).
// fill: A=-1..1 B=-1..1
// run: T=0 N=4 M=3
// run: T=1 N=3 M=5
// run: T=4 N=17 M=9
// run: T=9 N=40 M=33
void fe_do_while(int T, int N, int M, double A[N][M], double B[N][M]) {
  int t;
  B[0][0] = A[0][0];
  t = T;
  do {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) A[i][j] = B[i][j];
    t -= 2;
  } while (t > 0);
}
