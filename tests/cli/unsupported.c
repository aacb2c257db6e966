// Input of the cli_unsupported test: valid C99, but switch statements are outside the subset.
void unsupported(int N, float A[N]) {
  for (int i = 0; i < N; i++) {
    switch (i % 2) {
    case 0:
      A[i] = 0.0f;
    }
  }
}
