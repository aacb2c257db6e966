/* What the benchmarks share (see report.h). */
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static FILE *md_file; /* the results file, when one was asked for */

double sj_bench_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double sj_bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int sj_md_open(const char *path) {
  md_file = fopen(path, "w");
  return md_file ? 0 : -1;
}

void sj_md(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (md_file) {
    va_start(ap, fmt);
    vfprintf(md_file, fmt, ap);
    va_end(ap);
  }
}

void sj_md_flush(void) {
  fflush(stdout);
  if (md_file) fflush(md_file);
}

void sj_md_close(void) {
  if (md_file) fclose(md_file);
  md_file = NULL;
}
