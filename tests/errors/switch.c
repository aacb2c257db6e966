// error: 5:5: 'switch' is not supported
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++)
    switch (i) { default: A[i] = 0; }
}
