// Input of the cli_syntax test: a missing semicolon on line 4.
void bad_syntax(int N, float A[N]) {
  for (int i = 0; i < N; i++)
    A[i] = A[i] * 2.0f
}
