// Input of the cli_whole_program tests: a program whose main() and init() are outside the
// subset; the kernel named with --entry compiles without them, and without --entry the
// refusal of init() (which main calls, not the kernel) is the error.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

void smooth(int n, double *restrict out, const double *restrict in) {
  for (int i = 1; i < n - 1; i++) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0;
}

static void init(int n, double *a) {
  for (int i = 0; i < n; i++) a[i] = (double)rand() / RAND_MAX;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : N;
  double *a = malloc(n * sizeof *a), *b = calloc(n, sizeof *b);
  init(n, a);
  smooth(n, b, a);
  printf("%f\n", b[n / 2]);
  free(a);
  free(b);
  return 0;
}
