/* cpu_test: the CPU device's threads and tiers. The thread count follows the affinity mask,
 * JIT_THREADS and jit_options.threads; a process that forks after using a context has a
 * working context in the child; a kernel starts on tier 1 and switches to tier 2 without
 * waiting, and a second context finds tier 2's object in the on-disk cache. Every result is
 * compared, bit for bit, with the same function compiled by gcc.
 *
 *   cpu_test CASE      exits 0 (pass), 1 (fail) or 77 (skipped: no system compiler)
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <stenciljit.h>

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_common.h"

#define SKIP 77
enum { T = 7, ROWS = 64, COLS = 67, CELLS = 2 * ROWS * COLS };

static void fill(float *g) {
  unsigned s = 12345;
  for (int i = 0; i < CELLS; i++) {
    s = s * 1103515245u + 12345u;
    g[i] = (float)(s >> 8) / (float)(1u << 24);
  }
}

/* k run on fresh data, against jacobi2d compiled by gcc: 1 when bit-identical. */
static int run_matches(jit_kernel *k) {
  static float want[CELLS], got[CELLS];
  fill(want);
  fill(got);
  jacobi2d(T, ROWS, COLS, (float(*)[ROWS][COLS])want);
  jit_arg args[] = {JIT_INT(T), JIT_INT(ROWS), JIT_INT(COLS), JIT_PTR(got)};
  int st = jit_kernel_run(k, args, 4);
  CHECK(st == JIT_OK, "jit_kernel_run: %d", st);
  int same = st == JIT_OK && !memcmp(want, got, sizeof want);
  CHECK(same, "results differ from gcc's (tier %d)", jit_kernel_tier(k));
  return same;
}

static jit_kernel *compile(jit_context *ctx) {
  jit_arg args[] = {JIT_INT(T), JIT_INT(ROWS), JIT_INT(COLS), JIT_PTR(NULL)};
  jit_kernel *k = NULL;
  int st = jit_kernel_compile(ctx, jac_src, "jacobi2d", args, 4, &k);
  CHECK(st == JIT_OK && k, "jit_kernel_compile: %s", jit_context_error(ctx));
  return st == JIT_OK ? k : NULL;
}

static jit_context *cpu_context(int threads) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  CHECK(ctx, "jit_context_create: %s", jit_last_error());
  if (ctx && threads) {
    jit_options o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    CHECK(jit_context_set_options(ctx, &o) == JIT_OK, "set_options: %s", jit_context_error(ctx));
  }
  return ctx;
}

static int info_has(jit_context *ctx, const char *what) {
  const char *info = jit_context_info(ctx);
  int has = strstr(info, what) != NULL;
  CHECK(has, "jit_context_info lacks \"%s\": %s", what, info);
  return has;
}

/* --- threads --- */

/* One CPU in the mask: one worker thread, and a run still correct. */
static int test_affinity(void) {
  cpu_set_t all, one;
  CHECK(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity");
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &all)) first++;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity");
  jit_context *ctx = cpu_context(0);
  if (ctx) {
    info_has(ctx, "; 1 worker thread (");
    info_has(ctx, "of the 1 in the affinity mask");
    jit_kernel *k = compile(ctx);
    if (k) run_matches(k);
    jit_kernel_release(k);
    jit_context_destroy(ctx);
  }
  CHECK(sched_setaffinity(0, sizeof all, &all) == 0, "sched_setaffinity back");
  char want[64];
  snprintf(want, sizeof want, "of the %d in the affinity mask", CPU_COUNT(&all));
  ctx = cpu_context(0);
  if (ctx) info_has(ctx, want);
  jit_context_destroy(ctx);
  return g_fail;
}

/* JIT_THREADS sets the count, jit_options.threads wins over it, junk is ignored. */
static int test_env_threads(void) {
  setenv("JIT_THREADS", "3", 1);
  jit_context *ctx = cpu_context(0);
  if (ctx) {
    info_has(ctx, "; 3 worker threads (JIT_THREADS)");
    jit_kernel *k = compile(ctx);
    if (k) run_matches(k);
    jit_kernel_release(k);
    jit_context_destroy(ctx);
  }
  ctx = cpu_context(2);
  if (ctx) info_has(ctx, "; 2 worker threads (jit_options.threads)");
  jit_context_destroy(ctx);
  setenv("JIT_THREADS", "many", 1);
  cpu_set_t all;
  sched_getaffinity(0, sizeof all, &all);
  char want[64];
  snprintf(want, sizeof want, "; %d worker thread", CPU_COUNT(&all));
  ctx = cpu_context(0);
  if (ctx) info_has(ctx, want);
  jit_context_destroy(ctx);
  unsetenv("JIT_THREADS");
  return g_fail;
}

/* --- fork --- */

/* Runs child() in a forked process, which must exit 0 within 60 s (a hang is killed by its
 * alarm); 1 when it did. */
static int in_child(int (*child)(void *), void *arg) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    g_fail = 0; /* the child's own checks */
    alarm(60);
    _exit(child(arg) ? 1 : 0);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork/waitpid");
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child %s %d",
        WIFSIGNALED(status) ? "died of signal" : "exited with",
        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int child_runs(void *arg) {
  jit_context *ctx = arg;
  jit_kernel *k = compile(ctx); /* the parent's kernel, from the cache */
  if (k) run_matches(k);
  jit_kernel_release(k);
  jit_arg args[] = {JIT_INT(2), JIT_INT(9), JIT_INT(9), JIT_PTR(NULL)};
  static float g[2 * 9 * 9];
  args[3] = JIT_PTR(g); /* a new shape: a compile in the child */
  int st = jit_stencil_run(ctx, jac_src, NULL, args, 4);
  CHECK(st == JIT_OK, "jit_stencil_run in the child: %s", jit_context_error(ctx));
  jit_context_destroy(ctx);
  return g_fail;
}

/* A context whose pool ran, forked: the child's runs work (and end), and so do the parent's. */
static int test_fork(void) {
  setenv("JIT_TIER", "tcc", 1);
  jit_context *ctx = cpu_context(2);
  jit_kernel *k = ctx ? compile(ctx) : NULL;
  if (k) {
    run_matches(k);
    in_child(child_runs, ctx);
    run_matches(k);
  }
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  unsetenv("JIT_TIER");
  return g_fail;
}

/* --- tiers --- */

static int no_compiler(void) {
  jit_context *ctx = jit_context_create(JIT_DEVICE_CPU);
  int none = !ctx || strstr(jit_context_info(ctx), "no system compiler");
  jit_context_destroy(ctx);
  if (none) printf("skipped: no system compiler\n");
  return none;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Runs k until tier 2 runs (every result checked), at most 60 s; 1 when it came. */
static int reaches_tier2(jit_kernel *k) {
  double t0 = now_ms();
  while (jit_kernel_tier(k) != 2 && now_ms() - t0 < 60e3 && run_matches(k)) usleep(2000);
  CHECK(jit_kernel_tier(k) == 2, "still tier %d after 60 s: %s", jit_kernel_tier(k),
        jit_kernel_schedule(k));
  return jit_kernel_tier(k) == 2 && run_matches(k);
}

/* A cache directory of this test's own, empty: tier 2 must compile. */
static char cache_dir[] = "/tmp/sj-cpu-test-XXXXXX";

static void remove_cache_dir(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
  CHECK(system(cmd) == 0, "%s", cmd);
}

static int child_tier2(void *arg) {
  jit_context *ctx = arg;
  jit_kernel *k = compile(ctx);
  if (k) reaches_tier2(k);
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  return g_fail;
}

/* Tier 1 first, tier 2 later without a pause; the explanation says which and why; a second
 * context loads the object from the on-disk cache; a child forked while the compiler works
 * gets its tier 2 too. */
static int test_tiers(void) {
  if (no_compiler()) return SKIP;
  CHECK(mkdtemp(cache_dir), "mkdtemp");
  setenv("JIT_CACHE_DIR", cache_dir, 1);
  jit_context *ctx = cpu_context(2);
  jit_kernel *k = ctx ? compile(ctx) : NULL;
  if (k) {
    CHECK(jit_kernel_tier(k) == 1, "tier %d right after the compile", jit_kernel_tier(k));
    /* the tier only goes from 1 to 2: still 1 after the text was made, it was 1 during */
    const char *why = jit_kernel_schedule(k);
    if (jit_kernel_tier(k) == 1)
      CHECK(strstr(why, "\ntier 1 runs: TinyCC's code, until the second tier"), "%s", why);
    in_child(child_tier2, ctx);
    if (reaches_tier2(k))
      CHECK(strstr(jit_kernel_schedule(k), "\ntier 2 runs: "), "%s", jit_kernel_schedule(k));
  }
  jit_kernel_release(k);
  jit_context_destroy(ctx);

  setenv("JIT_TIER", "cc", 1);
  ctx = cpu_context(2);
  k = ctx ? compile(ctx) : NULL;
  jit_stats s;
  if (k && jit_context_stats(ctx, &s) == JIT_OK) {
    CHECK(jit_kernel_tier(k) == 2, "JIT_TIER=cc: tier %d", jit_kernel_tier(k));
    CHECK(s.disk_hits >= 1, "tier 2's object not from the on-disk cache (%lu hits)", s.disk_hits);
    CHECK(strstr(jit_kernel_schedule(k), "the on-disk cache"), "%s", jit_kernel_schedule(k));
    run_matches(k);
  }
  jit_kernel_release(k);
  jit_context_destroy(ctx);
  unsetenv("JIT_TIER");
  unsetenv("JIT_CACHE_DIR");
  remove_cache_dir();
  return g_fail;
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    int (*fn)(void);
  } cases[] = {
      {"affinity", test_affinity},
      {"env_threads", test_env_threads},
      {"fork", test_fork},
      {"tiers", test_tiers},
  };
  for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof cases[0]; i++)
    if (!strcmp(argv[1], cases[i].name)) {
      int r = cases[i].fn();
      if (r == SKIP) return SKIP;
      printf("%s: %s\n", argv[1], r ? "FAILED" : "ok");
      return r ? 1 : 0;
    }
  fprintf(stderr, "usage: cpu_test affinity|env_threads|fork|tiers\n");
  return 2;
}
