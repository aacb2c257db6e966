/* Reassociated results against the C function, within the bound kernel_bound.h derives. */
#include "kernel_bound.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kb_parse(const char *line, kb_spec *out) {
  memset(out, 0, sizeof *out);
  char buf[256];
  size_t len = strcspn(line, "\r\n");
  if (len >= sizeof buf) return -1;
  memcpy(buf, line, len);
  buf[len] = 0;
  for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
    if (!strncmp(tok, "terms=", 6) && strlen(tok + 6) < sizeof out->terms && tok[6])
      strcpy(out->terms, tok + 6);
    else if (!strcmp(tok, "expect=parallel"))
      out->expect_parallel = 1;
    else
      return -1;
  }
  return out->terms[0] ? 0 : -1;
}

/* A product of integers and parameters, joined by '*'. */
static long product(char *text, long (*value)(const char *name, void *user), void *user) {
  long n = 1;
  char *save;
  for (char *f = strtok_r(text, "*", &save); f; f = strtok_r(NULL, "*", &save)) {
    char *end;
    long v = strtol(f, &end, 10);
    if (*end) v = value(f, user);
    if (v < 0) return -1;
    n *= v;
  }
  return n;
}

long kb_terms(const kb_spec *spec, long (*value)(const char *name, void *user), void *user) {
  char buf[sizeof spec->terms];
  strcpy(buf, spec->terms);
  long n = 0;
  char *save;
  for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
    long v = product(t, value, user);
    if (v < 0) return -1;
    n += v;
  }
  return n;
}

size_t kb_compare(const char *what, jit_arg_kind k, const void *want, const void *got,
                  const void *abs_want, size_t n, long terms) {
  int single = k == JIT_ARG_FLOAT;
  double eps = single ? 0x1p-24 : 0x1p-53, tiny = single ? FLT_MIN : DBL_MIN;
  size_t over = 0;
  for (size_t i = 0; i < n; i++) {
    double w = single ? ((const float *)want)[i] : ((const double *)want)[i];
    double g = single ? ((const float *)got)[i] : ((const double *)got)[i];
    double a = single ? ((const float *)abs_want)[i] : ((const double *)abs_want)[i];
    /* abs_want is itself rounded: (1 + n eps) covers it */
    double bound = 2.0 * (double)(terms > 1 ? terms - 1 : 0) * eps * a * (1 + (double)terms * eps) +
                   (double)terms * tiny;
    int same_nan = isnan(w) && isnan(g);
    if (same_nan || fabs(g - w) <= bound) continue;
    if (over++ == 0)
      fprintf(stderr,
              "OVER BOUND %s: element %zu: expected %.17g, got %.17g, difference %.3g > bound "
              "%.3g (%ld terms, sum |x_i| %.6g)\n",
              what, i, w, g, fabs(g - w), bound, terms, a);
  }
  return over;
}
