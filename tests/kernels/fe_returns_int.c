// An entry returning an int: how many elements a threshold pass changed (a count the caller
// reads back through its last argument, a pointer to one int).
// fill: A=-5..5
// run: N=1
// run: N=7
// run: N=100
int fe_returns_int(int N, int A[N], int B[N]) {
  int changed = 0;
  for (int i = 0; i < N; i++) {
    B[i] = A[i] < 0 ? 0 : A[i];
    changed += A[i] < 0;
  }
  return changed;
}
