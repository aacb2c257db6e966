// In-place Gauss-Seidel of radius 2 sweeping downwards: the order of the sweep matters.
// run: T=0 N=6
// run: T=1 N=4
// run: T=1 N=5
// run: T=3 N=9
// run: T=5 N=200
void seidel1d_r2_down(int T, int N, double A[N]) {
  for (int t = 0; t < T; t++)
    for (int i = N - 3; i >= 2; i--)
      A[i] = (A[i - 2] + A[i - 1] + 2.0 * A[i] + A[i + 1] + A[i + 2]) / 6.0;
}
