// Input of the cli_program_structs test: a program with a struct, a typedef of one, a global,
// an init() calling rand() and a run() calling init(); the kernel named with --entry compiles
// without them all (and the reference leaves them out).
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int nx;
  double dt;
} params_t;
struct timer {
  double start;
};
static params_t defaults = {100, 0.1};

static void init(int n, double *a) {
  for (int i = 0; i < n; i++) a[i] = rand() / (double)RAND_MAX;
}

void run(int n, double *a, double *b) {
  init(n, a);
  for (int i = 0; i < n; i++) b[i] = a[i];
}

void step(int n, double *restrict out, const double *restrict in) {
  for (int i = 1; i < n - 1; i++) out[i] = 0.5 * (in[i - 1] + in[i + 1]);
}

int main(void) {
  double a[100], b[100] = {0};
  struct timer t = {0};
  run(defaults.nx, a, b);
  step(defaults.nx, b, a);
  printf("%f %f\n", b[1], t.start);
  return 0;
}
