// error: 5:12: a swap of arrays must end the loop's body: a statement follows it
// status: unsupported
void k(int T, int N, float *u, float *v) {
  for (int t = 0; t < T; t++) {
    float *w = u; u = v; v = w;
    for (int i = 1; i < N - 1; i++) v[i] = u[i - 1] + u[i + 1];
  }
}
