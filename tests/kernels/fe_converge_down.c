// A loop counting down with a test of the data that ends it early, the test on a local the body
// accumulates along the loop (sched/reduce.c: an accumulation along a loop counting down, whose
// schedule dimension is the iterator's opposite, was an isl failure on the GPU).
// fill: A=-1..1 B=-1..1
// run: T=0 N=4
// run: T=1 N=5
// run: T=5 N=4
// run: T=21 N=4
// run: T=40 N=64
void fe_converge_down(int T, int N, double A[N], double B[N], double total[1]) {
  double chk = 0;
  int t = 2 * T;
  while (t > 0 && chk < 0.5) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.0625 * A[i] + 0.0625 * A[i + 1];
    for (int i = 1; i < N - 1; i++) A[i] = B[i];
    chk = chk + (B[1] < 0 ? -B[1] : B[1]);
    t -= 2;
  }
  total[0] = chk;
}
