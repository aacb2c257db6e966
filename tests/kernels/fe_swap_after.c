// Arrays rotated through local pointers in a time loop that counts down by 2, and used after
// it (jit/parse.c, used_after): each statement after the loop is kept once per step of the
// rotation's period, under the test that the loop's iteration count leaves the names holding
// those arrays (a declaration's initializer as an assignment there). The sizes cover every
// step of the period of 3, and a loop that never runs.
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=16
// run: T=3 N=9
// run: T=4 N=37
// run: T=8 N=100
void fe_swap_after(int T, int N, double A[N], double B[N], double C[N], double out[N],
                   double *sum) {
  double *cur = A;
  double *nxt = B;
  double *old = C;
  for (int t = 2 * T; t > 0; t -= 2) {
    for (int i = 1; i < N - 1; i++)
      nxt[i] = 0.5 * cur[i] + 0.25 * (cur[i - 1] + cur[i + 1]) - 0.125 * old[i];
    double *w = old;
    old = cur;
    cur = nxt;
    nxt = w;
  }
  for (int i = 0; i < N; i++)
    out[i] = cur[i] - old[i];
  double s = 0.0, mid = cur[N / 2];
  for (int i = 0; i < N; i++)
    s += nxt[i];
  *sum = s + mid;
}
