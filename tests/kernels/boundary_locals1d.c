// A 1-D stencil whose ends are set through locals after the step (`float l = A[1], r =
// A[N - 2]; A[0] = l; A[N - 1] = r;`): r is read after `A[0] = l`, which writes another element
// only where N is not 2, so its value is written where it is read once the sizes are known
// (jit/scalar.c, sj_forward_values), and then l's; the two writes are statements of their own
// and the kernel is time-tiled. Where N = 2 the local stays (r is the old A[0]).
// run: T=0 N=3
// run: T=1 N=2
// run: T=4 N=2
// run: T=2 N=3
// run: T=3 N=4
// run: T=9 N=101
// run: T=17 N=1000
void boundary_locals1d(int T, int N, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.25f * (A[i - 1] + 2.0f * A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
    float l = A[1], r = A[N - 2];
    A[0] = l;
    A[N - 1] = r;
  }
}
