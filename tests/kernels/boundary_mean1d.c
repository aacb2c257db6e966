// A 1-D stencil whose two ends get one value computed after the step (`float m = ..; A[0] = m;
// A[N - 1] = m;`): a local of some work that two statements read stays a local, and the
// assignments directly in the time loop that declare every local they use get a loop of one
// point as array assignments do (sched/model.c): the kernel keeps its stencil form, where it
// ran in one GPU thread ('a statement has no space loop inside the outer loop').
// run: T=0 N=3
// run: T=1 N=2
// run: T=2 N=3
// run: T=3 N=4
// run: T=9 N=101
// run: T=17 N=1000
void boundary_mean1d(int T, int N, float w, float A[N], float B[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.25f * (A[i - 1] + 2.0f * A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
    float m = 0.5f * (A[1] + A[N - 2]) * w;
    A[0] = m;
    A[N - 1] = m;
  }
}
