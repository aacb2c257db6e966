// Unsigned char values in a stencil (uint8 saturation by hand with ?:), then an unsigned
// int array updated after the time loop.
// fill: A=0..255
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=1
// run: T=5 N=70
void uint_index(int T, int N, unsigned char A[2][N], unsigned int H[256]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      int v = A[t % 2][i - 1] + A[t % 2][i + 1] - A[t % 2][i] / 2;
      A[(t + 1) % 2][i] = (unsigned char)(v > 255 ? 255 : v < 0 ? 0 : v);
    }
  for (int i = 0; i < 256; i++) H[i] = H[i] * 3u + (unsigned)i;
}
