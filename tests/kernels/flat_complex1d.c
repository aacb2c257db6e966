// A complex field stored interleaved in one flat array, real then imaginary part, two planes:
// z[(t % 2) * 2 * N + 2 * i] and z[... + 2 * i + 1]. Seen in rows as z[2][N][2]: the constant
// 1 of the imaginary part goes to the last dimension (rounded down), not to the next element.
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=4
// run: T=9 N=100
// run: T=21 N=517
void flat_complex1d(int T, int N, double *z) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      const double *u = z + (t % 2) * 2 * N;
      double re = u[2 * (i - 1)] + u[2 * (i + 1)] - 2.0 * u[2 * i];
      double im = u[2 * (i - 1) + 1] + u[2 * (i + 1) + 1] - 2.0 * u[2 * i + 1];
      z[((t + 1) % 2) * 2 * N + 2 * i] = u[2 * i] - 0.1 * im;
      z[((t + 1) % 2) * 2 * N + 2 * i + 1] = u[2 * i + 1] + 0.1 * re;
    }
}
