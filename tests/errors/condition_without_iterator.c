// error: 4:19: does not test its iterator 'i'
// status: unsupported
void k(int N, float A[N]) {
  for (int i = 0; N > 0; i++) A[i] = 0;
}
