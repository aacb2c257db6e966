// Input of the cli_entry test: two functions, the second chosen with --entry.
void first(int N, float A[N]) {
  for (int i = 0; i < N; i++) A[i] = A[i] + 1.0f;
}

void second(int N, const float A[N], float B[N]) {
  for (int i = 1; i < N; i++) B[i] = 0.5f * (A[i] + A[i - 1]);
}
