// error: 6:5: iterator 'i' used outside its loop
// status: unsupported
void k(int N, float A[N]) {
  int i;
  for (i = 0; i < N; i++) A[i] = 0;
  A[i] = 1;
}
