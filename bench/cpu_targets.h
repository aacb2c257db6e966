/* The CPU targets (tiers, time tiling, threads) measured against gcc: jit_bench's sections
 * (c) to (f), written with bench_md. */
#ifndef BENCH_CPU_TARGETS_H
#define BENCH_CPU_TARGETS_H

#include <stenciljit.h>

/* kernel_dir holds tests/kernels' files; reps timed runs per median. */
void bench_cpu_targets(const char *kernel_dir, int reps);

#endif
