// error: 10:12: 'u' is swapped in a second loop: not supported
// status: unsupported
void k(int T, int N, float *u, float *v) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = u[i - 1] + u[i + 1];
    float *w = u; u = v; v = w;
  }
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = u[i - 1] + u[i + 1];
    float *w = u; u = v; v = w;
  }
}
