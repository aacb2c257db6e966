// error: 4:23: the initial value of 'j' may use only parameters, outer iterators and constants (it is computed again where the loop uses 'j')
// status: unsupported
void k(int N, int A[N]) {
  for (int i = 0, j = A[0]; i < N; i++, j++) A[i] = j;
}
