// error: 5:12: local pointers are not supported; to swap two arrays between time steps, pass one array of both
// status: unsupported
void k(int N, int T, double *u, double *v) {
  for (int t = 0; t < T; t++) {
    double *w = u;
    u = v;
    v = w;
  }
}
