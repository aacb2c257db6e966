// error: 6:5: assignment to loop iterator 'i'
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    A[i] = 0;
    i = i + 1;
  }
}
