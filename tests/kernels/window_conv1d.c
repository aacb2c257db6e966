// Window loops in 1-D: a 5-tap convolution with its weights in an array indexed by the tap
// (w[k + 2]) and a window that counts down with a step of 2, both unrolled (jit/window.c); a
// 9x9 double loop (81 iterations, more than a window unrolls) stays a loop and its sum a
// local promoted to memory. Results bit for bit the C function's.
// run: T=0 N=12
// run: T=1 N=5
// run: T=2 N=13
// run: T=5 N=100
void window_conv1d(int T, int N, const float w[5], float A[2][N], double S[N]) {
  for (int t = 0; t < T; t++) {
    for (int i = 2; i < N - 2; i++) {
      float s = 0.0f;
      for (int k = -2; k <= 2; k++) s += w[k + 2] * A[t % 2][i + k];
      for (int k = 2; k >= -2; k -= 2) s = s - 0.01f * A[t % 2][i + k];
      A[(t + 1) % 2][i] = s;
    }
    for (int i = 0; i < N; i++) {
      double total = 0.0;
      for (int a = 0; a < 9; a++)
        for (int b = 0; b < 9; b++) total += (double)(a * b) * A[(t + 1) % 2][i];
      S[i] = S[i] * 0.5 + total;
    }
  }
}
