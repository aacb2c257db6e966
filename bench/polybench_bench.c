/* polybench_bench: what bench/polybench.sh measures of one extracted PolyBench kernel.
 *
 *   polybench_bench FILE.c CPU_EXACT EMU_EXACT
 *
 * FILE.c holds one kernel function with its sizes on `// run:` (SMALL) and `// large:`
 * lines (bench/polybench_extract.py writes them); CPU_EXACT and EMU_EXACT are what
 * kernel_driver said of the SMALL run (yes / no / -). Prints one Markdown table row, then a
 * `#summary` line for the script's totals:
 * - accepted: whether it compiles at SMALL (else the message, its first line);
 * - cold JIT at SMALL, source to runnable: median of 5 compiles, each in a fresh context, on
 *   the CPU device, and to PTX on the emulator device (the PTX disk cache off);
 * - at LARGE, compiled for the emulator (not run): the GPU schedule chosen, the launches
 *   (host loop trips) and each kernel's grid and block;
 * - one run at SMALL on the emulator (JIT_EMU_STATS): dynamic PTX instructions and the L2
 *   model's DRAM bytes, summed over the launches, per statement instance. Model figures of
 *   the emulator, not GPU measurements. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "bench/common.h"
#include "stenciljit.h"

#define MAX_PARAMS 64
#define COLD_RUNS 5

typedef struct sizes {
  char name[MAX_PARAMS][64];
  long value[MAX_PARAMS];
  int n;
} sizes;

/* NAME=VALUE pairs of the `// tag` line of src. */
static int read_sizes(const char *src, const char *tag, sizes *out) {
  const char *p = strstr(src, tag);
  out->n = 0;
  if (!p) return -1;
  p += strlen(tag);
  while (*p && *p != '\n' && out->n < MAX_PARAMS) {
    while (*p == ' ') p++;
    int len = 0;
    long v;
    if (sscanf(p, "%63[A-Za-z0-9_]=%ld%n", out->name[out->n], &v, &len) != 2) break;
    out->value[out->n++] = v;
    p += len;
  }
  return 0;
}

/* Arguments for the parameters: integers from sizes, floating scalars 1.5, arrays NULL or
 * (fill) pseudo-random memory as the kernel declares it. */
static int make_args(jit_context *ctx, const char *src, const sizes *sz, jit_arg *args,
                     const jit_kernel *k, void **mem) {
  jit_param_info params[MAX_PARAMS];
  int count = 0;
  if (jit_function_params(ctx, src, NULL, params, MAX_PARAMS, &count)) return -1;
  uint64_t seed = 0x5eed;
  for (int i = 0; i < count; i++) {
    const jit_param_info *p = &params[i];
    args[i] = JIT_PTR(NULL);
    if (p->kind == JIT_ARG_INT || p->kind == JIT_ARG_LONG) {
      long v = 0;
      for (int s = 0; s < sz->n; s++)
        if (!strcmp(sz->name[s], p->name)) v = sz->value[s];
      args[i] = p->kind == JIT_ARG_INT ? JIT_INT((int)v) : JIT_LONG(v);
    } else if (p->kind == JIT_ARG_FLOAT) {
      args[i] = JIT_FLOAT(1.5f);
    } else if (p->kind == JIT_ARG_DOUBLE) {
      args[i] = JIT_DOUBLE(1.5);
    } else if (k) {
      const jit_param_info *kp = jit_kernel_param(k, i);
      size_t esz = kp->elem_kind == JIT_ARG_INT || kp->elem_kind == JIT_ARG_FLOAT ? 4 : 8;
      unsigned char *a = calloc(kp->elems ? kp->elems : 1, esz);
      for (size_t e = 0; e < kp->elems; e++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z ^= z >> 31;
        if (kp->elem_kind == JIT_ARG_INT) ((int *)a)[e] = (int)(z % 10);
        if (kp->elem_kind == JIT_ARG_LONG) ((long *)a)[e] = (long)(z % 10);
        if (kp->elem_kind == JIT_ARG_FLOAT) ((float *)a)[e] = (float)(z >> 40) * 0x1p-23f - 1.0f;
        if (kp->elem_kind == JIT_ARG_DOUBLE) ((double *)a)[e] = (double)(z >> 11) * 0x1p-52 - 1.0;
      }
      mem[i] = a;
      args[i] = JIT_BUF(a, kp->elems * esz);
    }
  }
  return count;
}

/* Median wall time of COLD_RUNS compiles on device, each in a fresh context; -1 when the
 * kernel is refused (*why: the message). */
static double cold_ms(jit_device device, const char *src, const sizes *sz, char *why, size_t len) {
  double t[COLD_RUNS];
  for (int r = 0; r < COLD_RUNS; r++) {
    jit_context *ctx = jit_context_create(device);
    jit_arg args[MAX_PARAMS];
    int n = ctx ? make_args(ctx, src, sz, args, NULL, NULL) : -1;
    jit_kernel *k = NULL;
    double t0 = bench_now_ms();
    int rc = n < 0 ? -1 : jit_kernel_compile(ctx, src, NULL, args, n, &k);
    t[r] = bench_now_ms() - t0;
    if (rc) snprintf(why, len, "%s", ctx ? jit_context_error(ctx) : jit_last_error());
    jit_kernel_release(k);
    jit_context_destroy(ctx);
    if (rc) return -1;
  }
  return bench_median(t, COLD_RUNS);
}

/* The launches of a GPU schedule's explanation: host loop trips and kernel grids. Returns
 * the largest grid, in blocks. */
static long launches(const char *text, char *out, size_t len) {
  long most = 0;
  size_t used = 0;
  out[0] = 0;
  for (const char *p = text; (p = strstr(p, "\n  ")); p++) {
    unsigned g[3], b[3];
    double trips;
    int id;
    if (sscanf(p + 3, "kernel %d: grid %ux%ux%u, block %ux%ux%u", &id, &g[0], &g[1], &g[2], &b[0],
               &b[1], &b[2]) == 7) {
      long blocks = (long)g[0] * g[1] * g[2];
      if (blocks > most) most = blocks;
      used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%sk%d %ux%ux%u/%ux%ux%u",
                               used ? ", " : "", id, g[0], g[1], g[2], b[0], b[1], b[2]);
    } else if (sscanf(p + 3, "host loop%*[^(](%lf iterations)", &trips) == 1) {
      used += (size_t)snprintf(out + used, used < len ? len - used : 0,
                               "%shost loop %.0f:", used ? ", " : "", trips);
    }
  }
  return most;
}

/* The schedule chosen: the text after "GPU schedule: " up to " (". */
static void chosen(const char *text, char *out, size_t len) {
  const char *p = strstr(text, "GPU schedule: ");
  out[0] = 0;
  if (!p) return;
  p += strlen("GPU schedule: ");
  const char *e = strstr(p, " (modeled");
  if (!e) e = strstr(p, " (one launch");
  if (!e) e = p + strcspn(p, "\n");
  snprintf(out, len, "%.*s", (int)(e - p), p);
}

static long long stat_sum(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[8192], pat[64];
  long long sum = 0;
  snprintf(pat, sizeof pat, "\"%s\":", key);
  while (fgets(line, sizeof line, f)) {
    const char *p = strstr(line, pat);
    if (p) sum += atoll(p + strlen(pat));
  }
  fclose(f);
  return sum;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: polybench_bench FILE.c CPU_EXACT EMU_EXACT\n");
    return 2;
  }
  char *src = sj_read_file(argv[1], NULL);
  const char *base = strrchr(argv[1], '/');
  base = base ? base + 1 : argv[1];
  sizes small, large;
  if (!src || read_sizes(src, "// run:", &small) || read_sizes(src, "// large:", &large)) {
    fprintf(stderr, "polybench_bench: %s: no `// run:` and `// large:` sizes\n", argv[1]);
    return 2;
  }
  setenv("JIT_CACHE", "off", 1);
  char why[512] = "", sched[256] = "-", launch[2048] = "-";
  double cpu = cold_ms(JIT_DEVICE_CPU, src, &small, why, sizeof why);
  double emu = cpu < 0 ? -1 : cold_ms(JIT_DEVICE_EMU, src, &small, why, sizeof why);
  long most = -1;
  double instr = -1, dram = -1;
  if (cpu >= 0) {
    jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
    jit_arg args[MAX_PARAMS];
    jit_kernel *k = NULL;
    int n = make_args(ctx, src, &large, args, NULL, NULL);
    if (n >= 0 && jit_kernel_compile(ctx, src, NULL, args, n, &k) == 0) {
      const char *text = jit_kernel_schedule(k);
      most = launches(text, launch, sizeof launch);
      chosen(text, sched, sizeof sched);
    } else {
      snprintf(launch, sizeof launch, "LARGE refused: %s", jit_context_error(ctx));
    }
    jit_kernel_release(k);
    jit_context_destroy(ctx);
    /* one run at SMALL with the emulator's counters */
    char stats[] = "/tmp/sj-polybench-XXXXXX";
    int fd = mkstemp(stats);
    if (fd >= 0) close(fd);
    setenv("JIT_EMU_STATS", stats, 1);
    ctx = jit_context_create(JIT_DEVICE_EMU);
    void *mem[MAX_PARAMS] = {0};
    n = make_args(ctx, src, &small, args, NULL, NULL);
    if (n >= 0 && jit_kernel_compile(ctx, src, NULL, args, n, &k) == 0) {
      n = make_args(ctx, src, &small, args, k, mem);
      long long inst = jit_kernel_updates(k);
      if (jit_kernel_run(k, args, n) == 0 && inst > 0) {
        instr = (double)stat_sum(stats, "instructions") / (double)inst;
        dram = (double)stat_sum(stats, "l2_model_dram_bytes") / (double)inst;
      }
      jit_kernel_release(k);
    }
    for (int i = 0; i < MAX_PARAMS; i++) free(mem[i]);
    jit_context_destroy(ctx);
    unsetenv("JIT_EMU_STATS");
    remove(stats);
  }
  why[strcspn(why, "\n")] = 0;
  for (char *c = why; *c; c++)
    if (*c == '|') *c = '/';
  if (cpu < 0)
    printf("| %s | no: %s | - | - | - | - | - | - | - | - |\n", base, why);
  else
    printf("| %s | yes | %s | %s | %.1f | %.1f | %s | %s | %ld | %.1f / %.1f |\n", base, argv[2],
           argv[3], cpu, emu, sched, launch, most, instr, dram);
  printf("#summary %s accepted=%d exact=%d blocks=%ld cold_ms=%.2f\n", base, cpu >= 0,
         !strcmp(argv[2], "yes") && !strcmp(argv[3], "yes"), most, cpu);
  free(src);
  return 0;
}
