/* What the benchmarks share: a clock, medians, and Markdown written to stdout and to the
 * results file alike. */
#ifndef SJ_BENCH_REPORT_H
#define SJ_BENCH_REPORT_H

double sj_bench_now_us(void);             /* CLOCK_MONOTONIC */
double sj_bench_median(double *v, int n); /* sorts v */

int sj_md_open(const char *path); /* 0, or -1 with errno set */
void sj_md(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sj_md_flush(void); /* stdout and the file, before a fork */
void sj_md_close(void);

#endif
