// Reductions into scalars (issue 11): a float dot product accumulated in a local scalar and
// stored once, and a double sum of squares accumulated into an element whose value before
// the loop (the caller's) takes part. In exact mode the C order, bit-identical; with
// reassociation (kernel_driver --reassociate) the loop runs over the whole GPU: partials per
// thread, warp shuffles, the block's warps in shared memory, one atomic per block, within the
// bound of kernel_bound.h.
// run: N=1
// run: N=33
// run: N=1000
// run: N=65536
// run: N=100003
// reassociate: terms=N+1 expect=parallel
void red_dot(int N, const float x[N], const float y[N], float dot[1], double sq[1]) {
  float s = 0.0f;
  for (int i = 0; i < N; i++) s += x[i] * y[i];
  dot[0] = s;
  for (int i = 0; i < N; i++) sq[0] += (double)x[i] * x[i];
}
