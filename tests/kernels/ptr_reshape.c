// Flat arrays seen as rows through pointers to variably modified arrays, the common C99
// idiom (float (*a)[m] = (float (*)[m])pa;), the views swapped after each step: their
// subscripts are linearized onto the flat arrays.
// fill: pa=-1..1 pb=-1..1
// run: T=0 n=3 m=4
// run: T=1 n=3 m=3
// run: T=2 n=9 m=17
// run: T=5 n=40 m=37
void ptr_reshape(int T, int n, int m, float *pa, float *pb) {
  float (*a)[m] = (float (*)[m])pa;
  float (*restrict b)[m] = (float (*)[m])pb;
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        b[i][j] = 0.2f * (a[i][j] + a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
    float (*tmp)[m] = a;
    a = b;
    b = tmp;
  }
}
