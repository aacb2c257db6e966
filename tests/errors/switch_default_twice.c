// error: 7:5: multiple default labels in one switch
// status: syntax
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++)
    switch (i % 2) {
    default: A[i] = 0; break;
    default: A[i] = 1; break;
    }
}
