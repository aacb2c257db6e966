// error: 7:14: pointer assignments are supported only as a swap of arrays ending the body of the outermost loop
// status: unsupported
void k(int B, int T, int N, float *u, float *v) {
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++) {
      for (int i = 1; i < N - 1; i++) v[i] = u[i - 1] + u[i + 1];
      float *w = u;
      u = v;
      v = w;
    }
}
