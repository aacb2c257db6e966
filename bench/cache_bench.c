/* cache_bench: the kernel caches, measured; written as Markdown.
 *
 *   cache_bench [--out FILE.md] [--shapes N] [--reps R] [--bound MIB]
 *
 * (a) compile time of a kernel new to the process, on the emulator device (the GPU path):
 *     with the on-disk cache off, on a miss that links the PTX and stores the image, and on a
 *     hit that reads the image linked from the same PTX; a fresh context each time, median of
 *     --reps;
 * (b) memory of one context after --shapes distinct shapes (default 10^4) with the in-memory
 *     cache bounded to --bound MiB: kernels kept, the cache's estimate, and the heap really
 *     in use (mallinfo2) and the resident set against the bound, on the CPU and the emulator. */
#include <stenciljit.h>

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "bench/common.h"

#ifndef SJ_KERNEL_DIR
#error "SJ_KERNEL_DIR must name tests/kernels"
#endif

static void die(const char *what, const jit_context *ctx) {
  fprintf(stderr, "cache_bench: %s: %s\n", what, ctx ? jit_context_error(ctx) : jit_last_error());
  exit(1);
}

static char *read_kernel(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SJ_KERNEL_DIR, name);
  char *src = sj_read_file(path, NULL);
  if (!src) die(path, NULL);
  return src;
}

static char cache_dir[256];

static void empty_cache_dir(void) {
  DIR *d = opendir(cache_dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", cache_dir, e->d_name);
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(p);
  }
  if (d) closedir(d);
}

typedef enum mode { COLD_OFF, MISS_STORE, DISK_HIT, NMODES } mode;

/* One compile of a kernel new to the process, as mode says; times in ms. */
static void compile_once(const char *src, const jit_arg *args, int nargs, mode m, double *wall,
                         jit_stage_times *st) {
  if (m == COLD_OFF)
    setenv("JIT_CACHE", "off", 1);
  else
    unsetenv("JIT_CACHE");
  if (m == MISS_STORE) empty_cache_dir();
  jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
  if (!ctx) die("jit_context_create(EMU)", NULL);
  jit_kernel *k;
  double t0 = bench_now_us();
  if (jit_kernel_compile(ctx, src, NULL, args, nargs, &k)) die("compile", ctx);
  *wall = (bench_now_us() - t0) / 1e3;
  jit_kernel_stage_times(k, st);
  jit_stats s;
  jit_context_stats(ctx, &s);
  if ((m == DISK_HIT) != (s.disk_hits > 0) || (m == MISS_STORE) != (s.disk_writes > 0))
    die("the on-disk cache did not do what this measurement assumes", NULL);
  jit_kernel_release(k);
  jit_context_destroy(ctx);
}

static void compile_times(const char *title, const char *src, const jit_arg *args, int nargs,
                          int reps) {
  static const char *const names[] = {"on-disk cache off", "miss: linked and stored",
                                      "hit: image read from disk"};
  double wall[NMODES][64], print[NMODES][64], total[NMODES][64];
  double dummy;
  jit_stage_times st;
  compile_once(src, args, nargs, MISS_STORE, &dummy, &st); /* first-use costs, and the entry */
  for (int r = 0; r < reps; r++)
    for (int m = 0; m < NMODES; m++) {
      compile_once(src, args, nargs, (mode)m, &wall[m][r], &st);
      print[m][r] = st.print / 1e3;
      total[m][r] = st.total / 1e3;
    }
  bench_md(
      "\n### %s\n\n| on-disk cache | jit_kernel_compile (ms) | library total (ms) | print stage "
      "(ms) "
      "|\n|---|---:|---:|---:|\n",
      title);
  double base = 0;
  for (int m = 0; m < NMODES; m++) {
    double w = bench_median(wall[m], reps);
    if (m == COLD_OFF) base = w;
    bench_md("| %s | %.3f (%.2fx) | %.3f | %.3f |\n", names[m], w, w / base,
             bench_median(total[m], reps), bench_median(print[m], reps));
  }
}

static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

static size_t rss_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f && fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  if (f) fclose(f);
  return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

static int many_shapes(jit_device dev, const char *name, const char *src, int shapes,
                       size_t bound) {
  setenv("JIT_CACHE", "off", 1);
  jit_context *ctx = jit_context_create(dev);
  if (!ctx) die("jit_context_create", NULL);
  jit_options o = {0};
  o.cache_bytes = bound;
  o.threads = 1;
  jit_context_set_options(ctx, &o);
  jit_arg args[] = {JIT_INT(2), JIT_INT(8), JIT_INT(16), JIT_PTR(NULL)};
  jit_kernel *k;
  if (jit_kernel_compile(ctx, src, NULL, args, 4, &k)) die("compile", ctx);
  jit_kernel_release(k);
  jit_context_clear_cache(ctx);
  size_t heap0 = heap_in_use(), rss0 = rss_bytes(), peak = 0, rss_peak = 0;
  bench_md("\n### %s\n\n| shapes | kernels kept | evictions | cache estimate (MiB) | heap growth "
           "(MiB) | resident growth (MiB) | compile (ms, median of the last step) |\n"
           "|---:|---:|---:|---:|---:|---:|---:|\n",
           name);
  int step = shapes >= 10 ? shapes / 10 : 1;
  double *times = malloc(sizeof(double) * (size_t)step);
  for (int s = 0; s < shapes; s++) {
    args[1] = JIT_INT(9 + s);
    double t0 = bench_now_us();
    if (jit_kernel_compile(ctx, src, NULL, args, 4, &k)) die("compile", ctx);
    times[s % step] = (bench_now_us() - t0) / 1e3;
    jit_kernel_release(k);
    size_t h = heap_in_use(), r = rss_bytes();
    if (h > heap0 && h - heap0 > peak) peak = h - heap0;
    if (r > rss0 && r - rss0 > rss_peak) rss_peak = r - rss0;
    if ((s + 1) % step) continue;
    jit_stats st;
    jit_context_stats(ctx, &st);
    bench_md("| %d | %zu | %lu | %.1f | %.1f | %.1f | %.2f |\n", s + 1, st.cache_kernels,
             st.evictions, st.cache_bytes / 1048576.0, (h > heap0 ? h - heap0 : 0) / 1048576.0,
             (r > rss0 ? r - rss0 : 0) / 1048576.0, bench_median(times, step));
  }
  free(times);
  int ok = peak <= bound;
  bench_md("\nPeak heap growth %.1f MiB, peak resident growth %.1f MiB; bound %.0f MiB: %s.\n",
           peak / 1048576.0, rss_peak / 1048576.0, bound / 1048576.0,
           ok ? "heap under the bound" : "**heap above the bound**");
  jit_context_destroy(ctx);
  return ok;
}

/* In a process of its own, so that the resident set starts from the same place. */
static int in_child(jit_device dev, const char *name, const char *src, int shapes, size_t bound) {
  bench_md_flush();
  pid_t pid = fork();
  if (pid == 0) {
    int ok = many_shapes(dev, name, src, shapes, bound);
    bench_md_flush();
    _exit(ok ? 0 : 1);
  }
  int status = 1;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) die("fork", NULL);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv) {
  const char *out = NULL;
  int shapes = 10000, reps = 15;
  long bound_mib = 32;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
      shapes = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bound") && i + 1 < argc)
      bound_mib = atol(argv[++i]);
    else
      return fprintf(stderr, "usage: cache_bench [--out F.md] [--shapes N] [--reps R] "
                             "[--bound MIB]\n"),
             2;
  }
  if (reps < 1 || reps > 64 || shapes < 1 || bound_mib < 1) return 2;
  if (out && bench_md_open(out)) return perror(out), 1;
  snprintf(cache_dir, sizeof cache_dir, "/tmp/sj_cache_bench_XXXXXX");
  if (!mkdtemp(cache_dir)) return perror("mkdtemp"), 1;
  setenv("JIT_CACHE_DIR", cache_dir, 1);

  char date[64];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  bench_md("# stenciljit kernel caches\n\n| | |\n|---|---|\n| date | %s |\n| nproc | %ld |\n"
           "| stenciljit | %s |\n| device | PTX emulator (no GPU on this machine) |\n",
           date, sysconf(_SC_NPROCESSORS_ONLN), jit_version());

  bench_md("\n## (a) Compile time of a kernel new to the process, emulator device\n\n"
           "A fresh context each time (the in-memory cache is empty), median of %d. On a hit the "
           "model, dependences, schedule, AST and PTX are still built (the host loop, the launch "
           "geometry and the image's key, the PTX's SHA-256, come from them); the image the "
           "driver linked from that PTX is read instead of linked. The emulator's image is its "
           "PTX text, so a hit saves nothing here; on a real GPU it skips the driver's PTX JIT "
           "(tens to hundreds of ms, not measured here: no GPU).\n",
           reps);
  char *jacobi = read_kernel("jacobi2d_5pt.c"), *heat3d = read_kernel("heat3d_27pt.c");
  jit_arg j_args[] = {JIT_INT(10), JIT_INT(4096), JIT_INT(4096), JIT_PTR(NULL)};
  compile_times("jacobi-2d 4096x4096, T=10", jacobi, j_args, 4, reps);
  jit_arg h_args[] = {JIT_INT(10), JIT_INT(256), JIT_INT(256), JIT_INT(256), JIT_PTR(NULL)};
  compile_times("heat-3d 27-point 256^3, T=10", heat3d, h_args, 5, reps);

  size_t bound = (size_t)bound_mib << 20;
  bench_md(
      "\n## (b) Memory after %d distinct shapes on one context\n\n"
      "jacobi-2d with T=2, M=16 and N = 9, 10, ...: every call a new shape, the in-memory cache "
      "bounded by jit_options.cache_bytes = %ld MiB, the on-disk cache off. Heap growth is "
      "mallinfo2's bytes in use above those before the first shape; it includes what a "
      "compile allocates for the while. Target (issue 12): memory stays under the configured "
      "bound.\n",
      shapes, bound_mib);
  int ok = in_child(JIT_DEVICE_CPU, "CPU device", jacobi, shapes, bound);
  ok &= in_child(JIT_DEVICE_EMU, "emulator device", jacobi, shapes, bound);
  bench_md("\nTarget: memory after %d shapes under the bound: %s.\n", shapes,
           ok ? "met" : "**missed**");

  empty_cache_dir();
  rmdir(cache_dir);
  free(jacobi);
  free(heat3d);
  bench_md_close();
  return 0;
}
