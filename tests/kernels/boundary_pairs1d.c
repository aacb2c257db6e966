// A 1-D stencil whose two end points are set by consecutive assignments in the time loop: one
// statement each (sched/model.c), each placed where it writes (sched/place.c); as one
// statement placed at 0 the end point N - 1 reached across the array in a step and hybrid
// tiling refused ('needs 2997' at N=3000).
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=4
// run: T=7 N=45
// run: T=12 N=3000
void boundary_pairs1d(int T, int N, double A[N], double B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
    A[0] = B[1];
    A[N - 1] = B[N - 2];
  }
}
