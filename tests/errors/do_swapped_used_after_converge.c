// error: 11:40: 'u' was swapped with another array in the loop at 8:12, whose test of the data may end it early; using it after that loop is not supported (copy what the last step wrote into an array of its own in the loop)
// status: unsupported
void k(int T, int N, float *u, float *v, float *out, float err[1]) {
  int t = 0;
  do {
    for (int i = 1; i < N - 1; i++) v[i] = 0.5f * (u[i - 1] + u[i + 1]);
    err[0] = v[1] - u[1];
    float *w = u; u = v; v = w;
    t++;
  } while (t < T && err[0] > 0.3f);
  for (int i = 0; i < N; i++) out[i] = u[i];
}
