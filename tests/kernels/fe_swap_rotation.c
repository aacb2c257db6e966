// A wave equation over three arrays rotated through pointers to rows each step (a temporary
// declared in the loop), the time loop from 1 to T by a step of 1 written `t += 1`.
// run: T=0 N=3
// run: T=1 N=5
// run: T=2 N=8
// run: T=8 N=37
// run: T=13 N=70
void fe_swap_rotation(int T, int N, float (*a)[N], float (*b)[N], float (*c)[N]) {
  for (int t = 1; t <= T; t += 1) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++) {
        float lap = b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1] - 4 * b[i][j];
        c[i][j] = 2 * b[i][j] - a[i][j] + 0.1f * lap;
      }
    float(*w)[N] = a;
    a = b;
    b = c;
    c = w;
  }
}
