// error: 11:40: 'u' was swapped with another array in the loop at 9:12, whose test of the data may end it early; using it after that loop is not supported (copy what the last step wrote into an array of its own in the loop)
// status: unsupported
void k(int T, int N, float *u, float *v, float *out, float err[1]) {
  err[0] = 1.0f;
  for (int t = 0; t < T && err[0] > 0.3f; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = 0.5f * (u[i - 1] + u[i + 1]);
    err[0] = 0.0f;
    for (int i = 1; i < N - 1; i++) err[0] = err[0] + (v[i] - u[i]) * (v[i] - u[i]);
    float *w = u; u = v; v = w;
  }
  for (int i = 0; i < N; i++) out[i] = u[i];
}
