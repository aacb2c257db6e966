// A cellular automaton on bits: neighbours mixed with shifts, xor, or, and, ~, the double
// buffer chosen by t & 1 and (t & 1) ^ 1; unsigned and signed shifts, compound |= and ^=.
// fill: A=-100000..100000
// run: T=0 N=3
// run: T=1 N=3
// run: T=2 N=4
// run: T=5 N=33
// run: T=9 N=300
// run: T=33 N=1000
void bits_stencil(int T, int N, int A[2][N]) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++) {
      unsigned x = (unsigned)A[t & 1][i - 1] >> 3 ^ (unsigned)A[t & 1][i + 1] << 5;
      x ^= x << 13;
      x ^= x >> 17;
      int y = (A[t & 1][i] >> 2) | (~A[t & 1][i] & 0x0f0f);
      y |= i << 4;
      A[(t & 1) ^ 1][i] = (int)(x & 0x7fffffffu) ^ y;
    }
}
