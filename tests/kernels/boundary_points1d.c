// A 1-D stencil over two arrays whose end points are set by assignments directly in the time
// loop: each a statement with a loop of one point, as many loops as the stencil's, placed where
// it writes (sched/place.c); placed at 0 the end point N - 1 reached across the array in a step
// and hybrid tiling did not apply.
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=4
// run: T=7 N=45
// run: T=12 N=3000
void boundary_points1d(int T, int N, double A[N], double B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    A[0] = B[1];
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
    A[N - 1] = B[N - 2];
  }
}
