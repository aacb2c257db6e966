/* What the benchmarks share: clocks, medians, deterministic data, the machine, Markdown
 * reports. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdio.h>

double bench_now_ms(void);             /* CLOCK_MONOTONIC */
double bench_now_us(void);
double bench_median(double *v, int n); /* sorts v; -1 when n <= 0 */
void bench_fill(float *a, size_t n);   /* the same pseudo-random values in [-1, 1) each call */
void bench_machine_lines(FILE *out);   /* "- date:", "- CPU:", "- OS:" list items */

/* Markdown written to stdout and to the results file alike. */
int bench_md_open(const char *path); /* 0, or -1 with errno set */
void bench_md(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_md_flush(void); /* stdout and the file, before a fork */
void bench_md_close(void);

#endif
