/* The math functions of the subset against this process's C library: on the CPU device the
 * very same results, bit for bit; on a GPU device (the emulator, or a CUDA GPU) within the
 * bounds doc/math.md states, in units in the last place, over special values and random
 * arguments spread over each function's whole domain (log-uniform magnitudes, both signs).
 *
 *   math_ulp_test cpu|emu|cuda [FUNCTION|all [COUNT [SEED]]]
 *
 * prints the largest error of each function (of FUNCTION only, unless all). */
#include <stenciljit.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

/* Arguments per function and type, and the seed of the random ones: a run with other values
 * (math_ulp_test emu FUNCTION COUNT SEED) measures more densely. */
static int g_count = 200000;
static uint64_t g_seed = 0x5eed;

/* One function: its C library versions (the float one, the double one, and the long double
 * one as the reference of the double), the bounds doc/math.md states for the GPU (ULP of
 * float and of double from the true value; 0: bit for bit the C library), where random
 * arguments come from. */
typedef struct fn_case {
  const char *name;
  int nargs;
  float (*f1)(float);
  double (*d1)(double);
  long double (*l1)(long double);
  float (*f2)(float, float);
  double (*d2)(double, double);
  long double (*l2)(long double, long double);
  double ulp_f, ulp_d;
  double lo, hi;   /* magnitudes of random arguments: 2^lo .. 2^hi, both signs */
  double lo2, hi2; /* of the second argument */
} fn_case;

#define F1(name, uf, ud, lo, hi)                                                                   \
  { #name, 1, name##f, name, name##l, NULL, NULL, NULL, uf, ud, lo, hi, 0, 0 }
#define F2(name, uf, ud, lo, hi, lo2, hi2)                                                         \
  { #name, 2, NULL, NULL, NULL, name##f, name, name##l, uf, ud, lo, hi, lo2, hi2 }

static const fn_case cases[] = {
    F1(sqrt, 0, 0, -1074, 1023),      F1(fabs, 0, 0, -1074, 1023),
    F2(fmin, 0, 0, -20, 20, -20, 20), F2(fmax, 0, 0, -20, 20, -20, 20),
    F1(floor, 0, 0, -30, 60),         F1(ceil, 0, 0, -30, 60),
    F1(trunc, 0, 0, -30, 60),         F1(round, 0, 0, -30, 60),
    F2(fmod, 0, 0, -60, 60, -60, 60), F1(exp, 1, 1, -30, 10),
    F1(exp2, 1, 1, -30, 11),          F1(expm1, 1, 1.5, -60, 10),
    F1(log, 1, 1, -1074, 1023),       F1(log2, 1, 1, -1074, 1023),
    F1(log10, 1, 1, -1074, 1023),     F1(log1p, 1, 1, -60, 1023),
    F2(pow, 1, 2, -30, 30, -8, 7),    F1(sin, 1, 1, -60, 1023),
    F1(cos, 1, 1, -60, 1023),         F1(tan, 1, 1.5, -60, 1023),
    F1(sinh, 1, 1, -60, 10),          F1(cosh, 1, 1.5, -60, 10),
    F1(tanh, 1, 1, -60, 6),           F2(copysign, 0, 0, -60, 60, -60, 60),
};

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double uniform(uint64_t *s) {
  return (double)(splitmix(s) >> 11) * 0x1p-53;
}

/* Zeros, NaN, infinities, subnormals, the largest values, the edges of exp's and the float
 * exp's range, and points where functions change their formula. */
static const double specials[] = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  0.5,
                                  -0.5,
                                  2.0,
                                  -2.0,
                                  3.0,
                                  -3.0,
                                  0x1p-1074,
                                  -0x1p-1074,
                                  0x1p-1022,
                                  0x1.8p-1030,
                                  -1e-310,
                                  0x1.fffffffffffffp1023,
                                  -0x1.fffffffffffffp1023,
                                  INFINITY,
                                  -INFINITY,
                                  NAN,
                                  709.78,
                                  710.0,
                                  -708.4,
                                  -745.5,
                                  -744.0,
                                  88.72,
                                  88.8,
                                  -87.3,
                                  -103.9,
                                  -150.0,
                                  1e-300,
                                  1e300,
                                  22.0,
                                  -22.5,
                                  0.7853981633974483,
                                  1.5707963267948966,
                                  3.141592653589793,
                                  0x1p30,
                                  0x1.0000001p30,
                                  1e-8,
                                  0x1.6ac5b262ca1ffp+849,
                                  -1e-20,
                                  0.99999,
                                  1.00001,
                                  -0.99999,
                                  10.0};
enum { NSPECIAL = sizeof specials / sizeof *specials };

/* Argument k of the case: specials (paired with specials for two arguments) first, then
 * random values. */
static double argument(const fn_case *c, int which, int k, uint64_t *s, int single) {
  if (k < NSPECIAL * NSPECIAL && c->nargs == 2)
    return specials[which ? k % NSPECIAL : k / NSPECIAL];
  if (k < NSPECIAL && c->nargs == 1) return specials[k];
  double lo = which ? c->lo2 : c->lo, hi = which ? c->hi2 : c->hi;
  if (single) { /* the float range */
    if (lo < -149) lo = -149;
    if (hi > 127) hi = 127;
  }
  double v = exp2(lo + (hi - lo) * uniform(s));
  if (c->nargs == 2 && which == 1 && (splitmix(s) & 3) == 0) v = floor(v * 8); /* integers */
  return splitmix(s) & 1 ? -v : v;
}

/* pow's hardest arguments: a base near 1 and an exponent so large that the result lies
 * anywhere between the underflow and the overflow (every bit of log a counts). */
static void near_limits(double *a, double *b, uint64_t *s, int single) {
  double lo = single ? -103 : -744, hi = single ? 88 : 709;
  double base = 0.5 + 1.5 * uniform(s);
  if (single) base = (float)base;
  if (base == 1) base = 1.25;
  *a = base;
  *b = (lo + (hi - lo) * uniform(s)) / log(base);
  if (single) *b = (float)*b;
}

/* Whether got is the C library's result bit for bit (any NaN for NaN). */
static int same(double want, double got) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  return memcmp(&want, &got, sizeof want) == 0;
}

/* The error of got in ULP of the type (float, double) from ref, a more precise value of the
 * true result. Where the true result rounds to a zero, an infinity or NaN, only that (with
 * its sign) is right; a zero from the tiniest subnormals is measured like other values. */
static double ulp_error(long double ref, double got, int single) {
  long double r = single ? (long double)(float)ref : (long double)(double)ref;
  if (isnan(r) || isinf(r) || ref == 0) return same((double)r, got) ? 0 : INFINITY;
  if (isnan(got) || isinf(got)) return INFINITY;
  int e = ilogbl(ref), emin = single ? -126 : -1022, digits = single ? 24 : 53;
  if (e < emin) e = emin;
  return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, e - digits + 1));
}

/* The reference: the long double function for double, the double one for float. */
static long double reference(const fn_case *c, double a, double b, int single) {
  if (single) return c->nargs == 1 ? c->d1(a) : c->d2(a, b);
  return c->nargs == 1 ? c->l1(a) : c->l2(a, b);
}

/* What the C library says, at the type. */
static double library(const fn_case *c, double a, double b, int single) {
  if (single) return c->nargs == 1 ? c->f1((float)a) : c->f2((float)a, (float)b);
  return c->nargs == 1 ? c->d1(a) : c->d2(a, b);
}

/* The error of result k: 0 or infinite where the result must be the C library's (the CPU,
 * the exact functions), else in ULP. */
static double error_of(const fn_case *c, double a, double b, double got, int single, int gpu) {
  if (!gpu || (c->ulp_f == 0 && c->ulp_d == 0))
    return same(library(c, a, b, single), got) ? 0 : INFINITY;
  return ulp_error(reference(c, a, b, single), got, single);
}

static double element(const char *p, int k, int single) {
  return single ? ((const float *)p)[k] : ((const double *)p)[k];
}

/* Runs the function on g_count arguments on the device; the largest error, or -1 when the run
 * failed. */
static double measure(jit_context *ctx, const fn_case *c, int single, int gpu) {
  const char *t = single ? "float" : "double";
  char src[512];
  snprintf(src, sizeof src,
           "#include <math.h>\nvoid k(int N, %s X[N], %s Y[N], %s R[N]) {\n"
           "  for (int i = 0; i < N; i++) R[i] = %s%s(X[i]%s);\n}\n",
           t, t, t, c->name, single ? "f" : "", c->nargs == 2 ? ", Y[i]" : "");
  size_t es = single ? sizeof(float) : sizeof(double);
  size_t n = (size_t)g_count;
  char *x = malloc(n * es), *y = malloc(n * es), *r = malloc(n * es);
  uint64_t seed = g_seed + (uint64_t)c->name[0] * 131 + (uint64_t)c->name[1] * 7 + (uint64_t)single;
  for (int k = 0; k < g_count; k++) {
    double a = argument(c, 0, k, &seed, single), b = argument(c, 1, k, &seed, single);
    if (c->nargs == 2 && !strcmp(c->name, "pow") && k >= NSPECIAL * NSPECIAL && k % 4 == 0)
      near_limits(&a, &b, &seed, single);
    if (single) {
      ((float *)x)[k] = (float)a;
      ((float *)y)[k] = (float)b;
    } else {
      ((double *)x)[k] = a;
      ((double *)y)[k] = b;
    }
  }
  jit_arg args[] = {JIT_INT(g_count), JIT_PTR(x), JIT_PTR(y), JIT_PTR(r)};
  double worst = -1;
  if (jit_stencil_run(ctx, src, "k", args, 4) != JIT_OK) {
    CHECK(0, "%s%s: %s", c->name, single ? "f" : "", jit_context_error(ctx));
  } else {
    int at = 0;
    worst = 0;
    for (int k = 0; k < g_count; k++) {
      double a = element(x, k, single), b = element(y, k, single);
      double e = error_of(c, a, b, element(r, k, single), single, gpu);
      if (e > worst) worst = e, at = k;
    }
    double bound = gpu ? (single ? c->ulp_f : c->ulp_d) : 0;
    double a = element(x, at, single), b = element(y, at, single);
    CHECK(worst <= bound, "%s%s(%a, %a) = %a, the C library says %a: %g ulp (bound %g)", c->name,
          single ? "f" : "", a, b, element(r, at, single), library(c, a, b, single), worst, bound);
  }
  free(x);
  free(y);
  free(r);
  return worst;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "cpu") && strcmp(argv[1], "emu") && strcmp(argv[1], "cuda"))) {
    fprintf(stderr, "usage: math_ulp_test cpu|emu|cuda [FUNCTION|all [COUNT [SEED]]]\n");
    return 2;
  }
  if (argc > 3) g_count = atoi(argv[3]);
  if (argc > 4) g_seed = strtoull(argv[4], NULL, 0);
  if (g_count < NSPECIAL * NSPECIAL) {
    fprintf(stderr, "math_ulp_test: COUNT below the %d special cases\n", NSPECIAL * NSPECIAL);
    return 2;
  }
  int gpu = strcmp(argv[1], "cpu") != 0;
  jit_context *ctx = jit_context_create(!gpu                      ? JIT_DEVICE_CPU
                                        : !strcmp(argv[1], "emu") ? JIT_DEVICE_EMU
                                                                  : JIT_DEVICE_CUDA);
  if (!ctx) {
    fprintf(stderr, "no context: %s\n", jit_last_error());
    return 1;
  }
  printf("%-6s %12s %12s   largest error (%s)\n", "", "float", "double",
         gpu ? "ULP from the true value; exact: bit for bit the C library"
             : "bit for bit the C library");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const fn_case *c = &cases[i];
    if (argc > 2 && strcmp(argv[2], "all") && strcmp(argv[2], c->name)) continue;
    double f = measure(ctx, c, 1, gpu), d = measure(ctx, c, 0, gpu);
    if (!gpu || (c->ulp_f == 0 && c->ulp_d == 0))
      printf("%-6s %12s %12s\n", c->name, f == 0 ? "exact" : "DIFFERS",
             d == 0 ? "exact" : "DIFFERS");
    else
      printf("%-6s %12.3f %12.3f   (bounds %g, %g)\n", c->name, f, d, c->ulp_f, c->ulp_d);
  }
  jit_context_destroy(ctx);
  return g_fail;
}
