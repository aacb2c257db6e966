// error: 8:9: a declaration that uses arrays swapped in a loop above: not supported (declare it before, and assign it)
// status: unsupported
void k(int T, int N, float *u, float *v, float *out) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = u[i - 1] + u[i + 1];
    float *w = u; u = v; v = w;
  }
  float first = u[0];
  out[0] = first;
}
