// 1-D inclusive prefix sum in place: no parallel loop.
// run: N=1
// run: N=2
// run: N=3
// run: N=33
// run: N=129
// run: N=100000
void prefix_sum(int N, int A[N]) {
  for (int i = 1; i < N; i++) A[i] = A[i - 1] + A[i];
}
