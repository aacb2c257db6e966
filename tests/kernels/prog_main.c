// A whole program as it is written: the kernel beside a main() that allocates, fills, calls
// it and prints. main() is outside the subset (argv, malloc, printf) and nobody calls it, so
// it is left out (jit/parse.c, sj_parse_for) and the kernel is the entry; the reference
// leaves it out too.
// run: T=0 N=3
// run: T=1 N=4
// run: T=6 N=37
// run: T=20 N=300
#include <stdio.h>
#include <stdlib.h>

void prog_main(int T, int N, double *restrict u, double *restrict v) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
    for (int i = 1; i < N - 1; i++) u[i] = v[i];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, steps = 100;
  double *u = calloc((size_t)n, sizeof *u), *v = calloc((size_t)n, sizeof *v);
  if (!u || !v) return 1;
  u[n / 2] = 1.0;
  prog_main(steps, n, u, v);
  printf("%g\n", u[n / 2]);
  free(u);
  free(v);
  return 0;
}
