// Two half-steps per iteration of a time loop with step 2 (A to B, then B to A), the form
// users write to avoid the copy-back.
// run: T=0 N=5
// run: T=1 N=3
// run: T=2 N=2
// run: T=5 N=9
// run: T=8 N=200
void pingpong_step2(int T, int N, float A[N], float B[N]) {
  for (int t = 0; t < T; t += 2) {
    for (int i = 1; i < N - 1; i++) B[i] = 0.25f * (A[i - 1] + 2.0f * A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++) A[i] = 0.25f * (B[i - 1] + 2.0f * B[i] + B[i + 1]);
  }
}
