// Integer reductions (issue 11): an int sum, a long sum of products and a subtraction into
// elements the caller set. Integer addition is associative modulo 2^n, so with reassociation
// the parallel sums (atom.add.s32, atom.add.u64) are bit-identical to the C order.
// run: N=1
// run: N=40
// run: N=3001
// run: N=50000
// fill: a=-9..9 b=-1000..1000
// reassociate: terms=N+1 expect=parallel
void red_int(int N, const int a[N], const long b[N], int s[1], long p[1], int d[1]) {
  for (int i = 0; i < N; i++) {
    s[0] += a[i];
    p[0] += b[i] * a[i];
  }
  for (int i = 0; i < N; i++) d[0] -= a[i];
}
