// In-place Gauss-Seidel sweeps in 1-D: each point needs its left neighbour of this sweep
// and its right one of the last; neither loop is parallel, the time-skewed wavefront is.
// run: T=0 N=5
// run: T=1 N=3
// run: T=3 N=33
// run: T=8 N=64
// run: T=13 N=257
void seidel1d(int T, int N, double A[N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) A[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
}
