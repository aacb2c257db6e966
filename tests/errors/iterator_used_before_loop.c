// error: 6:8: iterator 'i' used outside its loop (at 5:3)
// status: unsupported
void k(int N, float A[N]) {
  int i;
  i = 0;
  for (i = 0; i < N; i++) A[i] = 0;
}
