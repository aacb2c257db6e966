/* Emulator speed: emulated thread-instructions per second for 2D stencil kernels, run through
 * the driver API, without and with the counters (JIT_EMU_STATS, which runs the L2 traffic model
 * and advances the blocks of a wave together). Times are CPU time of this process, best of 5:
 * the machine is shared, and CPU time does not count the waits for it. Writes a Markdown table
 * to the given results file. Usage: bench_emu LIB PTXDIR RESULTS.md [N] */
#include <time.h>
#include <unistd.h>
#include "../../tests/emu/emu_test.h"

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

/* Best CPU time of 5 launches of f over the N x M grid; stats: the counters' file or NULL. */
static double best_of(CUfunction f, unsigned bx, unsigned by, int N, int M, CUdeviceptr a,
                      CUdeviceptr b, const char *stats) {
  if (stats)
    setenv("JIT_EMU_STATS", stats, 1);
  else
    unsetenv("JIT_EMU_STATS");
  double best = 1e30;
  for (int it = 0; it < 5; it++) {
    void *args[] = {&N, &M, &a, &b};
    double t0 = cpu_seconds();
    CU(cu.cuLaunchKernel(f, (unsigned)(M + (int)bx - 1) / bx, (unsigned)(N + (int)by - 1) / by, 1,
                         bx, by, 1, 0, NULL, args, NULL));
    CU(cu.cuCtxSynchronize());
    double t = cpu_seconds() - t0;
    best = t < best ? t : best;
  }
  return best;
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
          "driver API (`bench/emu/bench_emu`). Target: 20 M/s. Without counters, and with them "
          "(`JIT_EMU_STATS`: the counters, the L2 traffic model, and the blocks of a wave "
          "advancing together between barriers, which `stencil2d` has one of). Seconds are CPU "
          "time of the process, best of 5.\n\n",
          N, M);
  fprintf(out, "| kernel | block | race check | thread-instructions | s | M instr/s | s, counters "
               "| M instr/s, counters | wave blocks | global sectors | unique sectors | L2-model "
               "DRAM bytes | bank conflicts |\n");
  fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
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
      double off = best_of(f, runs[r].bx, runs[r].by, N, M, a, b, NULL);
      double on = best_of(f, runs[r].bx, runs[r].by, N, M, a, b, stats);
      long long ins = stat_of(stats, "instructions");
      printf("%-16s race=%d %lld instr: %.3f s (%.1f M/s), with counters %.3f s (%.1f M/s)\n",
             runs[r].kernel, race, ins, off, (double)ins / off / 1e6, on, (double)ins / on / 1e6);
      fprintf(out,
              "| %s | %ux%u | %s | %lld | %.3f | %.1f | %.3f | %.1f | %lld | %lld | %lld | "
              "%lld | %lld |\n",
              runs[r].kernel, runs[r].bx, runs[r].by, race ? "on" : "off", ins, off,
              (double)ins / off / 1e6, on, (double)ins / on / 1e6, stat_of(stats, "wave_blocks"),
              stat_of(stats, "global_sectors"), stat_of(stats, "unique_sectors"),
              stat_of(stats, "l2_model_dram_bytes"), stat_of(stats, "bank_conflicts"));
      if ((double)ins / on / 1e6 < 20.0) ok = 0;
    }
  fprintf(out,
          "\nMeasured on this machine (%ld CPU cores available, one used). The race check is on "
          "by default. The L2 model is an H100's 50 MB L2, least recently used over 32-byte "
          "sectors (model, not a GPU measurement).\n",
          sysconf(_SC_NPROCESSORS_ONLN));
  /* The model where the launch's 12 MB do not fit: smaller L2s (JIT_EMU_L2_BYTES). */
  fprintf(out, "\nDRAM bytes of one launch in the model for smaller L2s (`JIT_EMU_L2_BYTES`): "
               "unique sectors count every sector once, the L2 model reads again what was "
               "evicted before its reuse.\n\n| kernel | L2 | unique sectors x 32 | L2-model DRAM "
               "bytes |\n|---|---|---|---|\n");
  static const long l2s[] = {50l << 20, 1l << 20, 256l << 10, 32l << 10};
  for (int r = 0; r < 2; r++)
    for (size_t k = 0; k < sizeof l2s / sizeof *l2s; k++) {
      char v[32];
      snprintf(v, sizeof v, "%ld", l2s[k]);
      setenv("JIT_EMU_L2_BYTES", v, 1);
      CUfunction f;
      CU(cu.cuModuleGetFunction(&f, m, runs[r].kernel));
      best_of(f, runs[r].bx, runs[r].by, N, M, a, b, stats);
      fprintf(out, "| %s | %ld KB | %lld | %lld |\n", runs[r].kernel, l2s[k] >> 10,
              32 * stat_of(stats, "unique_sectors"), stat_of(stats, "l2_model_dram_bytes"));
    }
  unsetenv("JIT_EMU_L2_BYTES");
  fclose(out);
  unlink(stats);
  free(h);
  free(ptx);
  CU(cu.cuCtxDestroy_v2(ctx));
  finish("bench_emu");
  return ok ? 0 : 3;
}
