/* What the benchmarks share: clocks, medians, deterministic data, the machine. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdio.h>

double bench_now_ms(void);             /* CLOCK_MONOTONIC */
double bench_median(double *v, int n); /* sorts v; -1 when n <= 0 */
void bench_fill(float *a, size_t n);   /* the same pseudo-random values in [-1, 1) each call */
void bench_machine_lines(FILE *out);   /* "- date:", "- CPU:", "- OS:" list items */

#endif
