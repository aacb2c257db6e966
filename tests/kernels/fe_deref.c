// Pointer notation: elements read and written as *(a + i - 1) and the like, and the sums of
// squares of the last step returned through *norm, as C programs write an output scalar.
// fill: a=-1..1 b=-1..1 norm=0..1
// run: T=0 N=3
// run: T=1 N=4
// run: T=3 N=17
// run: T=6 N=200
void fe_deref(int T, int N, float *a, float *b, double *norm) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      *(b + i) = 0.25f * *(a + i - 1) + 0.5f * *(a + i) + 0.25f * *(a - 1 + i + 2);
    for (int i = 1; i < N - 1; i++) *(a + i) = b[i];
  }
  double s = 0.0;
  for (int i = 0; i < N; i++) s += (double)*(a + i) * *(a + i);
  *norm = s;
}
