// error: 8:40: 'u' was swapped with another array in the loop at 6:12; using it after that loop is supported where the loop's condition compares its iterator with a bound (t < T)
// status: unsupported
void k(int T, int N, float *u, float *v, float *out) {
  for (int t = 0; t < T && t < N; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = u[i - 1] + u[i + 1];
    float *w = u; u = v; v = w;
  }
  for (int i = 0; i < N; i++) out[i] = u[i];
}
