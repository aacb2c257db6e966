/* Helpers of the benchmarks (see common.h). */
#include "bench/common.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double bench_now_us(void) {
  return bench_now_ms() * 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  if (n <= 0) return -1;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* splitmix64, top 24 bits: exact floats, no denormals. */
void bench_fill(float *a, size_t n) {
  uint64_t s = 0x5eed1234u;
  for (size_t i = 0; i < n; i++) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    a[i] = (float)(z >> 40) * 0x1p-23f - 1.0f;
  }
}

void bench_machine_lines(FILE *out) {
  char cpu[256] = "unknown", line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    const char *p = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !p) continue;
    p += 1 + strspn(p + 1, " \t");
    snprintf(cpu, sizeof cpu, "%.*s", (int)strcspn(p, "\n"), p);
    break;
  }
  if (f) fclose(f);
  struct utsname u;
  char os[256] = "unknown";
  if (uname(&u) == 0) snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
  char date[64];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  fprintf(out, "- date: %s\n", date);
  fprintf(out, "- CPU: %s, %ld logical cores online\n", cpu, sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(out, "- OS: %s\n", os);
}

static FILE *md_file; /* the results file, when one was asked for */

int bench_md_open(const char *path) {
  md_file = fopen(path, "w");
  return md_file ? 0 : -1;
}

void bench_md(const char *fmt, ...) {
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

void bench_md_flush(void) {
  fflush(stdout);
  if (md_file) fflush(md_file);
}

void bench_md_close(void) {
  if (md_file) fclose(md_file);
  md_file = NULL;
}
