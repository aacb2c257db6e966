/* The CPU targets of issue 14, measured side by side in one run (jit_bench's sections c-f):
 * tier 2 against gcc -O3 -march=native on the naive loop, one thread; the time-tiled schedule
 * on every core against the same gcc code on one thread and with OpenMP on all; how soon
 * tier 2 is ready; a one-CPU affinity mask against one thread. Every JIT result is compared
 * bit for bit with gcc's naive loop. The machine's load (/proc/loadavg) is given with each
 * section: other processes bias the ratios. */
#define _GNU_SOURCE /* sched_setaffinity */
#include "bench/cpu_targets.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "bench/common.h"

#if SJ_BENCH_OPENMP
#include <omp.h>
#endif

/* gcc -O3 -march=native on the kernel files; NAME_omp: the same with OpenMP on the outer
 * space loop (see CMakeLists.txt). */
void jacobi2d_native(int T, int N, int M, float *A);
void heat2d_9pt_native(int T, int N, int M, float *A);
void heat3d_27pt_native(int T, int N, int M, int K, float *A);
void jacobi2d_omp(int T, int N, int M, float *A);
void heat2d_9pt_omp(int T, int N, int M, float *A);
void heat3d_27pt_omp(int T, int N, int M, int K, float *A);

typedef void (*fn2)(int, int, int, float *);
typedef void (*fn3)(int, int, int, int, float *);

typedef struct tkernel {
  const char *name, *file;
  fn2 native2, omp2; /* 2-D */
  fn3 native3, omp3; /* 3-D */
} tkernel;

static const tkernel jacobi = {
    "jacobi-2d 5-point", "jacobi2d_5pt.c", jacobi2d_native, jacobi2d_omp, NULL, NULL};
static const tkernel heat2d = {"heat-2d 9-point", "heat2d_9pt.c", heat2d_9pt_native,
                               heat2d_9pt_omp,    NULL,           NULL};
static const tkernel heat3d = {"heat-3d 27-point", "heat3d_27pt.c", NULL, NULL,
                               heat3d_27pt_native, heat3d_27pt_omp};

/* One problem: a kernel at a size (every dimension n) and T steps, and its data. */
typedef struct problem {
  const tkernel *k;
  char *src;
  int n, T;
  size_t cells;
  float *init, *want; /* the start; gcc's naive result after reps + 1 runs */
  double updates;     /* per run */
} problem;

typedef enum gcc_kind { GCC_NATIVE, GCC_OMP } gcc_kind;

/* A JIT configuration: $JIT_TIER, $JIT_TILING, threads (0: one per CPU of the mask). */
typedef struct jit_variant {
  const char *tier, *tiling;
  int threads;
} jit_variant;

enum { MAX_REPS = 63 };
static int g_reps = 3;
static const char *g_dir;
static char g_schedule[600]; /* the CPU schedule line of the last JIT variant */

static void die(const char *what, const char *why) {
  fprintf(stderr, "jit_bench: %s: %s\n", what, why);
  exit(1);
}

static void load_line(const char *when) {
  char *s = sj_read_file("/proc/loadavg", NULL);
  int len = 0;
  for (int spaces = 0; s && s[len] && spaces < 3; len++) spaces += s[len] == ' ';
  bench_md("Load average (1, 5, 15 min) %s: %.*s\n\n", when, len, s ? s : "?");
  free(s);
}

static void problem_init(problem *p, const tkernel *k, int n, int T) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", g_dir, k->file);
  p->k = k;
  p->src = sj_read_file(path, NULL);
  if (!p->src) die("cannot read", path);
  p->n = n;
  p->T = T;
  int dims = k->native2 ? 2 : 3;
  p->cells = 2 * (size_t)n * n * (dims == 3 ? (size_t)n : 1);
  p->updates = (double)T * (n - 2) * (n - 2) * (dims == 3 ? n - 2 : 1);
  p->init = malloc(p->cells * sizeof(float));
  p->want = NULL;
  if (!p->init) die("out of memory", k->name);
  bench_fill(p->init, p->cells);
}

static void problem_free(problem *p) {
  free(p->src);
  free(p->init);
  free(p->want);
}

static float *copy_of(const problem *p) {
  float *a = malloc(p->cells * sizeof(float));
  if (!a) die("out of memory", p->k->name);
  memcpy(a, p->init, p->cells * sizeof(float));
  return a;
}

/* a == gcc's naive result (the first naive timing makes it). */
static int same(problem *p, float *a) {
  if (!p->want) {
    p->want = a;
    return 1;
  }
  int eq = !memcmp(a, p->want, p->cells * sizeof(float));
  free(a);
  return eq;
}

/* Median seconds of reps runs after one warm-up; *eq: the result is gcc's naive one. */
static double time_gcc(problem *p, gcc_kind kind, int *eq) {
  float *a = copy_of(p);
  double t[MAX_REPS + 1];
  const tkernel *k = p->k;
  for (int r = 0; r <= g_reps; r++) {
    double t0 = bench_now_us();
    if (k->native2)
      (kind == GCC_NATIVE ? k->native2 : k->omp2)(p->T, p->n, p->n, a);
    else
      (kind == GCC_NATIVE ? k->native3 : k->omp3)(p->T, p->n, p->n, p->n, a);
    t[r] = (bench_now_us() - t0) * 1e-6;
  }
  *eq = same(p, a);
  return bench_median(t + 1, g_reps);
}

static int make_args(const problem *p, void *a, jit_arg *args) {
  int n = 0;
  args[n++] = JIT_INT(p->T);
  for (int d = 0; d < (p->k->native2 ? 2 : 3); d++) args[n++] = JIT_INT(p->n);
  args[n++] = JIT_PTR(a);
  return n;
}

static jit_context *context(const jit_variant *v) {
  setenv("JIT_TIER", v->tier, 1);
  setenv("JIT_TILING", v->tiling, 1);
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  unsetenv("JIT_TIER");
  unsetenv("JIT_TILING");
  if (!ctx) die("jit_context_create", jit_last_error());
  jit_options o;
  memset(&o, 0, sizeof o);
  o.threads = v->threads;
  if (jit_context_set_options(ctx, &o)) die("jit_context_set_options", jit_context_error(ctx));
  return ctx;
}

/* The explanation's "CPU schedule" line after the heading (time-tiled or not, and why). */
static void keep_schedule_line(const jit_kernel *k) {
  const char *s = jit_kernel_schedule(k), *at = s ? strstr(s, "CPU schedule") : NULL;
  const char *line = at ? strchr(at, '\n') : NULL;
  g_schedule[0] = 0;
  if (line) snprintf(g_schedule, sizeof g_schedule, "%.*s", (int)strcspn(line + 3, "\n"), line + 3);
}

/* Median seconds of reps runs after one warm-up of p under v; *eq as time_gcc's. */
static double time_jit(problem *p, const jit_variant *v, int *eq) {
  jit_context *ctx = context(v);
  float *a = copy_of(p);
  jit_arg args[5];
  int na = make_args(p, a, args);
  jit_kernel *k = NULL;
  if (jit_kernel_compile(ctx, p->src, NULL, args, na, &k)) die("compile", jit_context_error(ctx));
  keep_schedule_line(k);
  double t[MAX_REPS + 1];
  for (int r = 0; r <= g_reps; r++) {
    double t0 = bench_now_us();
    if (jit_kernel_run(k, args, na)) die("run", jit_context_error(ctx));
    t[r] = (bench_now_us() - t0) * 1e-6;
  }
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  *eq = same(p, a);
  return bench_median(t + 1, g_reps);
}

static const char *verdict(int ok) {
  return ok ? "met" : "**missed**";
}

static int threads_all(void) {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* (c) tier 2 on one thread against gcc -O3 -march=native, 4096^2, T=10. */
static void section_tier2(void) {
  static const tkernel *const ks[] = {&jacobi, &heat2d};
  static const jit_variant tcc1 = {"tcc", "auto", 1}, flat1 = {"cc", "none", 1},
                           cc1 = {"cc", "auto", 1}, cc_all = {"cc", "auto", 0};
  int n = 4096, T = 10, ok = 1;
  bench_md("## (c) Tier 2, one thread, against gcc -O3 -march=native: %dx%d, T=%d\n\n", n, n, T);
  load_line("before");
  bench_md("Median of %d runs after a warm-up, in updates/s; ratio = stenciljit / gcc on one "
           "thread. Tier 2 is forced (JIT_TIER=cc) so that every timed run is tier 2; tier 1 "
           "(TinyCC) beside it.\n\n",
           g_reps);
  bench_md("| kernel | gcc -march=native, 1 thread | tier 1, 1 thread | tier 2 untiled, 1 thread "
           "| tier 2, 1 thread | ratio | tier 2, %d threads | ratio | bit-identical |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
           threads_all());
  char why[2][600];
  for (int i = 0; i < 2; i++) {
    problem p;
    problem_init(&p, ks[i], n, T);
    int e0, e1, e2, e3, e4;
    double g = p.updates / time_gcc(&p, GCC_NATIVE, &e0);
    double t1 = p.updates / time_jit(&p, &tcc1, &e1);
    double f1 = p.updates / time_jit(&p, &flat1, &e2);
    double c1 = p.updates / time_jit(&p, &cc1, &e3);
    snprintf(why[i], sizeof why[i], "%s", g_schedule);
    double ca = p.updates / time_jit(&p, &cc_all, &e4);
    int eq = e0 && e1 && e2 && e3 && e4;
    bench_md("| %s | %.3g | %.3g | %.3g | %.3g | **%.2fx** | %.3g | %.2fx | %s |\n", ks[i]->name, g,
             t1, f1, c1, c1 / g, ca, ca / g, eq ? "yes" : "**no**");
    ok &= c1 / g >= 1.0 && eq;
    problem_free(&p);
  }
  bench_md("\nTier 2's schedule, one thread: jacobi-2d: %s; heat-2d: %s.\n\n", why[0], why[1]);
  load_line("after");
  bench_md("Target: tier 2, one thread >= 1.0x gcc -O3 -march=native: %s.\n\n", verdict(ok));
}

/* (d) time-tiled on every core against gcc on one thread and OpenMP on all, T=64. */
static void section_tiled(void) {
  static const struct {
    const tkernel *k;
    int n;
  } ps[] = {{&jacobi, 4096}, {&heat3d, 256}};
  static const jit_variant untiled = {"cc", "none", 0}, tiled = {"cc", "time", 0};
  int T = 64, ok = 1, nomp = 1;
#if SJ_BENCH_OPENMP
  nomp = omp_get_max_threads();
#endif
  bench_md("## (d) Time tiling on all %d cores, T=%d: against gcc on one thread and with "
           "OpenMP\n\n",
           threads_all(), T);
  load_line("before");
  bench_md("Median of %d runs after a warm-up, in updates/s. gcc: -O3 -march=native "
           "-ffp-contract=off on the naive loop; OpenMP: `#pragma omp parallel for` on the "
           "outer space loop, %d threads%s. stenciljit: tier 2, JIT_TILING=none and =time.\n\n",
           g_reps, nomp, SJ_BENCH_OPENMP ? "" : " (**OpenMP not found: one thread**)");
  bench_md("| kernel | gcc, 1 thread | gcc OpenMP | stenciljit untiled | stenciljit time-tiled | "
           "vs gcc 1 thread | vs OpenMP | bit-identical |\n"
           "|---|---:|---:|---:|---:|---:|---:|---|\n");
  char why[2][600];
  for (int i = 0; i < 2; i++) {
    problem p;
    problem_init(&p, ps[i].k, ps[i].n, T);
    int e0, e1, e2, e3;
    double g = p.updates / time_gcc(&p, GCC_NATIVE, &e0);
    double o = p.updates / time_gcc(&p, GCC_OMP, &e1);
    double u = p.updates / time_jit(&p, &untiled, &e2);
    double t = p.updates / time_jit(&p, &tiled, &e3);
    snprintf(why[i], sizeof why[i], "%s", g_schedule);
    char size[32];
    snprintf(size, sizeof size, ps[i].k->native2 ? "%d^2" : "%d^3", ps[i].n);
    bench_md("| %s %s | %.3g | %.3g | %.3g | %.3g | **%.2fx** | **%.2fx** | %s |\n", ps[i].k->name,
             size, g, o, u, t, t / g, t / o, e0 && e1 && e2 && e3 ? "yes" : "**no**");
    ok &= t / g >= 1.5 && t / o >= 1.2 && e2 && e3;
    problem_free(&p);
  }
  bench_md("\nThe time-tiled schedules: jacobi-2d: %s; heat-3d: %s.\n\n", why[0], why[1]);
  load_line("after");
  bench_md("Target: time-tiled >= 1.5x gcc on one thread and >= 1.2x gcc with OpenMP: %s.\n\n",
           verdict(ok));
}

/* (e) how soon tier 2 runs: an empty on-disk cache (a fresh directory), then a second
 * context on the filled one, as another process would find it. */
static void section_ready(void) {
  problem p;
  problem_init(&p, &jacobi, 4096, 10);
  static const jit_variant autov = {"auto", "auto", 0};
  enum { R = 5 };
  double cold[R], ready[R], hit[R];
  char dir[] = "/tmp/sj-bench-cache-XXXXXX", cmd[128];
  jit_arg args[5];
  int na = make_args(&p, NULL, args);
  for (int r = 0; r < R; r++) {
    if (!mkdtemp(dir)) die("mkdtemp", dir);
    setenv("JIT_CACHE_DIR", dir, 1);
    for (int pass = 0; pass < 2; pass++) {
      jit_context *ctx = context(&autov);
      jit_kernel *k = NULL;
      double t0 = bench_now_ms();
      if (jit_kernel_compile(ctx, p.src, NULL, args, na, &k))
        die("compile", jit_context_error(ctx));
      double t1 = bench_now_ms();
      while (jit_kernel_tier(k) != 2 && bench_now_ms() - t1 < 30e3) usleep(200);
      double t2 = bench_now_ms();
      if (pass == 0)
        cold[r] = t1 - t0, ready[r] = t2 - t1;
      else
        hit[r] = t2 - t1;
      jit_kernel_release(k);
      jit_context_destroy(ctx);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) die("cannot remove", dir);
    memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
  }
  unsetenv("JIT_CACHE_DIR");
  double c = bench_median(cold, R), rd = bench_median(ready, R), h = bench_median(hit, R);
  bench_md("## (e) Tier 1 cold JIT and tier 2 readiness: jacobi-2d %dx%d, T=%d\n\n", p.n, p.n, p.T);
  load_line("after");
  bench_md("Median of %d; each with an empty on-disk cache (a fresh JIT_CACHE_DIR), then a second "
           "context on the filled cache (what another process finds).\n\n",
           R);
  bench_md("| | ms |\n|---|---:|\n| tier 1: jit_kernel_compile, source to runnable | %.1f |\n"
           "| tier 2 ready after the first call returned (system compiler) | %.1f |\n"
           "| tier 2 ready, second context (on-disk cache hit) | %.1f |\n\n",
           c, rd, h);
  bench_md("Targets: tier 1 cold JIT < 20 ms: %s; tier 2 ready within 300 ms: %s.\n\n",
           verdict(c < 20), verdict(rd <= 300));
  problem_free(&p);
}

/* (f) a one-CPU affinity mask (taskset -c 0) against one thread: the pool must not
 * oversubscribe it, and the barrier must yield when it is forced to. */
static void section_affinity(void) {
  problem p;
  problem_init(&p, &jacobi, 1024, 10);
  static const jit_variant one = {"cc", "auto", 1}, mask = {"cc", "auto", 0},
                           two = {"cc", "auto", 2};
  int e0, e1, e2, e3;
  double t_gcc = time_gcc(&p, GCC_NATIVE, &e0);
  double t1 = time_jit(&p, &one, &e1);
  cpu_set_t all, cpu0;
  sched_getaffinity(0, sizeof all, &all);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &all)) first++;
  CPU_ZERO(&cpu0);
  CPU_SET(first, &cpu0);
  if (sched_setaffinity(0, sizeof cpu0, &cpu0)) die("sched_setaffinity", "one CPU");
  double tm = time_jit(&p, &mask, &e2), t2 = time_jit(&p, &two, &e3);
  sched_setaffinity(0, sizeof all, &all);
  bench_md("## (f) One CPU in the affinity mask (taskset -c %d): jacobi-2d %dx%d, T=%d, tier 2"
           "\n\n",
           first, p.n, p.n, p.T);
  load_line("after");
  bench_md("| run | ms | vs 1 thread | bit-identical |\n|---|---:|---:|---|\n");
  bench_md("| gcc -march=native, 1 thread | %.2f | | |\n", t_gcc * 1e3);
  bench_md("| stenciljit, --threads 1 | %.2f | 1.00x | %s |\n", t1 * 1e3, e1 ? "yes" : "**no**");
  bench_md("| stenciljit, 1-CPU mask, default threads | %.2f | %.2fx | %s |\n", tm * 1e3, tm / t1,
           e2 ? "yes" : "**no**");
  bench_md("| stenciljit, 1-CPU mask, 2 threads forced | %.2f | %.2fx | %s |\n\n", t2 * 1e3,
           t2 / t1, e3 ? "yes" : "**no**");
  bench_md("Target: a 1-CPU mask not 10x slower than one thread (was 181 ms against 18.9 ms): "
           "%s.\n\n",
           verdict(tm / t1 < 2 && t2 / t1 < 10));
  problem_free(&p);
}

void bench_cpu_targets(const char *kernel_dir, int reps) {
  g_dir = kernel_dir;
  g_reps = reps < 1 ? 1 : reps > MAX_REPS ? MAX_REPS : reps;
  bench_md("Sections (c) to (f) time every variant side by side in one run. The machine may be "
           "shared: a load average above its CPU count means other processes took CPU time from "
           "these runs (most from the multi-threaded ones), so each section gives the load it "
           "ran under.\n\n");
  section_tier2();
  section_tiled();
  section_ready();
  section_affinity();
  bench_md("Numba and Devito: not installed in this environment (optional columns; not "
           "measured).\n");
}
