// Loop conditions that could hold again after they failed: C stops at the first failure
// (i != 5 && i < N; a count down to the first i with (i - 2) % 4 == 0; an unsigned i + 1 < N
// whose i + 1 wraps at the end of the type).
// run: N=1
// run: N=2
// run: N=6
// run: N=12
// run: N=101
void fe_loop_exit(int N, float A[N], float B[N]) {
  for (int i = 0; i < N && i != 5; i++) A[i] = A[i] * 0.5f + 1.0f;
  for (int i = N - 1; i >= 0 && (i - 2) % 4 != 0; i--) A[i] += 2.0f;
  for (unsigned i = 0; i + 1 < (unsigned)N; i++) B[i] = A[i + 1] - B[i];
}
