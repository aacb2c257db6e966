// error: 7:5: 'p' points into 'A': use it as p[i], *p or *(p + i), or pass it to a function (moving it or assigning it is not supported)
// status: unsupported
void k(int N, float A[N]) {
  float *p = &A[1];
  for (int i = 1; i < N; i++) {
    *p = 1.0f;
    p++;
  }
}
