// Swaps written by macros, as C programs write them: a `do { ... } while (0)` statement (read
// as the block it runs once: jit/parse.c, once_block) and a braced block (spliced into the
// loop's body: splice_moves), rotating three arrays at the end of the time loop's body.
// fill: u=-1..1 v=-1..1 w=-1..1
// run: T=0 N=3
// run: T=1 N=4
// run: T=2 N=9
// run: T=7 N=41
// run: T=12 N=300
#define SWAP(a, b)                                                                            \
  do {                                                                                        \
    double *tmp_ = a;                                                                         \
    a = b;                                                                                    \
    b = tmp_;                                                                                 \
  } while (0)
#define SWAP_BLOCK(a, b) { double *t_ = a; a = b; b = t_; }
void fe_swap_macro(int T, int N, double *u, double *v, double *w) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) w[i] = 0.5 * v[i] + 0.25 * (u[i - 1] + u[i + 1]);
    SWAP(u, v);
    SWAP_BLOCK(v, w);
  }
}
