// Input of the cli_unsupported test: valid C99, but while loops are outside the subset.
void unsupported(int N, float A[N]) {
  int i = 0;
  while (i < N) {
    A[i] = 0.0f;
    i++;
  }
}
