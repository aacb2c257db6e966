// error: 5:10: the condition of the while loop does not test its iterator 'it'
// status: unsupported
void k(int N, double tol, double A[N]) {
  int it = 0;
  while (A[0] > tol) {
    for (int i = 1; i < N; i++) A[i - 1] = 0.5 * A[i];
    it++;
  }
}
