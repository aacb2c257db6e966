// Loops written as while loops that count, in C89 style: the time loop's counter set by an
// assignment, the space loop's in the time loop's body, the buffers swapped before the step.
// fill: a=-1..1 b=-1..1
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=17
// run: T=7 N=300
void fe_while(int T, int N, float *a, float *b) {
  int t, i;
  float *tmp;
  t = 1;
  while (t <= T) {
    i = 1;
    while (i < N - 1) {
      b[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
      i += 1;
    }
    tmp = a;
    a = b;
    b = tmp;
    ++t;
  }
}
