// error: 4:19: the cast to a pointer to rows must give 'a''s own type
// status: unsupported
void k(int T, int n, int m, float *pa) {
  float (*a)[m] = (float (*)[n])pa;
  for (int t = 0; t < T; t++)
    for (int i = 1; i < n - 1; i++) a[i][0] = a[i - 1][0];
}
