// Input of the cli_unsupported test: valid C99, but goto is outside the subset.
void unsupported(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    if (A[i] < 0) goto done;
    A[i] = 0.0f;
  }
done:;
}
