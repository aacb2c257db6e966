// An argument that reads the data the called function writes: C reads it once, at the call,
// so it goes into a local before the body (here the body overwrites a[0] first).
// fill: a=-1..1
// run: T=0 N=3
// run: T=1 N=3
// run: T=4 N=50
static void relax(int n, float lead, float *a) {
  a[0] = 0.5f * a[1];
  for (int i = 1; i < n; i++) a[i] = 0.5f * (a[i] + lead * a[i - 1]);
}

void fe_call_data(int T, int N, float *a) {
  for (int t = 0; t < T; t++) relax(N, a[0] * 0.25f, a);
}
