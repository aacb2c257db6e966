/* Emulator speed: emulated thread-instructions per second for 2D stencil kernels, run through
 * the driver API. Writes a Markdown table to the given results file.
 * Usage: bench_emu LIB PTXDIR RESULTS.md [N] */
#include <time.h>
#include <unistd.h>
#include "../../tests/emu/emu_test.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long stat_of(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[8192], last[8192] = "";
  while (fgets(line, sizeof line, f)) strcpy(last, line);
  fclose(f);
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(last, pat);
  return p ? atoll(p + strlen(pat)) : -1;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s LIB PTXDIR RESULTS.md [N]\n", argv[0]);
    return 2;
  }
  int N = argc > 4 ? atoi(argv[4]) : 1024, M = N;
  char stats[] = "/tmp/emu_bench_XXXXXX";
  int fd = mkstemp(stats);
  if (fd < 0) return 1;
  close(fd);
  setenv("JIT_EMU_STATS", stats, 1);
  CUcontext ctx;
  setup(argv[1], &ctx);
  char *ptx = read_file(argv[2], "stencil.ptx"), log[4096];
  CUmodule m;
  if (load_ptx(&m, ptx, log, sizeof log)) {
    fprintf(stderr, "%s\n", log);
    return 1;
  }
  size_t bytes = (size_t)N * M * 4;
  float *h = malloc(bytes);
  for (size_t i = 0; i < (size_t)N * M; i++) h[i] = (float)(i % 97) * 0.25f;
  CUdeviceptr a, b;
  CU(cu.cuMemAlloc_v2(&a, bytes));
  CU(cu.cuMemAlloc_v2(&b, bytes));
  CU(cu.cuMemcpyHtoD_v2(a, h, bytes));
  CU(cu.cuMemcpyHtoD_v2(b, h, bytes));
  FILE *out = fopen(argv[3], "w");
  if (!out) return 1;
  fprintf(out, "# PTX emulator speed\n\n");
  fprintf(out,
          "Emulated thread-instructions per second (dynamic PTX instructions summed over "
          "threads) for one %dx%d 2D 5-point stencil step, one CPU core, through the "
          "driver API (`bench/emu/bench_emu`). Target: 20 M/s.\n\n",
          N, M);
  fprintf(out, "| kernel | block | race check | thread-instructions | seconds | M instr/s | "
               "global sectors | unique sectors | bank conflicts |\n");
  fprintf(out, "|---|---|---|---|---|---|---|---|---|\n");
  static const struct {
    const char *kernel;
    unsigned bx, by;
  } runs[] = {{"stencil2d_plain", 32, 8}, {"stencil2d", 32, 8}};
  int ok = 1;
  for (int r = 0; r < 2; r++)
    for (int race = 1; race >= 0; race--) {
      setenv("JIT_EMU_RACECHECK", race ? "1" : "0", 1);
      CUfunction f;
      CU(cu.cuModuleGetFunction(&f, m, runs[r].kernel));
      void *args[] = {&N, &M, &a, &b};
      double best = 1e30;
      for (int it = 0; it < 3; it++) {
        double t0 = now();
        CU(cu.cuLaunchKernel(f, (unsigned)(M + 31) / 32, (unsigned)(N + 7) / 8, 1, runs[r].bx,
                             runs[r].by, 1, 0, NULL, args, NULL));
        CU(cu.cuCtxSynchronize());
        double t = now() - t0;
        best = t < best ? t : best;
      }
      long long ins = stat_of(stats, "instructions");
      double rate = (double)ins / best / 1e6;
      printf("%-16s race=%d %lld instr in %.3f s: %.1f M instr/s\n", runs[r].kernel, race, ins,
             best, rate);
      fprintf(out, "| %s | %ux%u | %s | %lld | %.3f | %.1f | %lld | %lld | %lld |\n",
              runs[r].kernel, runs[r].bx, runs[r].by, race ? "on" : "off", ins, best, rate,
              stat_of(stats, "global_sectors"), stat_of(stats, "unique_sectors"),
              stat_of(stats, "bank_conflicts"));
      if (rate < 20.0) ok = 0;
    }
  fprintf(out,
          "\nBest of 3 runs each; measured on this machine (%ld CPU cores available, "
          "one used). The race check is on by default.\n",
          sysconf(_SC_NPROCESSORS_ONLN));
  fclose(out);
  unlink(stats);
  free(h);
  free(ptx);
  CU(cu.cuCtxDestroy_v2(ctx));
  finish("bench_emu");
  return ok ? 0 : 3;
}
