/* The driver layer (host/cuda.c) against a driver library: the PTX emulator (the same
 * code path a GPU takes) or the scripted mock (mock_cuda.c: driver versions, devices and
 * failures the emulator cannot pretend). Usage: cuda_test CASE LIBRARY; exit 0 on
 * success. Failure injection in the emulator is set by ctest (JIT_EMU_FAIL). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/cuda.h"
#include "stenciljit.h"
#include "base/file.h"

static int failures;
static const char *vecadd_ptx = SJ_TEST_VECADD_PTX; /* or the third argument (a bundle) */

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: failed: %s: ", __FILE__, __LINE__, #cond);                           \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static int contains(const char *s, const char *sub) {
  return strstr(s, sub) != NULL;
}

static sj_cuda *open_or_die(const char *lib) {
  sj_cuda *c;
  sj_error err = {0};
  if (sj_cuda_open(lib, &c, &err) != JIT_OK) {
    fprintf(stderr, "sj_cuda_open(%s): %s\n", lib ? lib : "default library", err.msg);
    exit(1);
  }
  return c;
}

static sj_cuda_module *load_or_die(sj_cuda *c) {
  char *ptx = sj_read_file(vecadd_ptx, NULL);
  sj_cuda_module *m;
  sj_error err = {0};
  if (!ptx || sj_cuda_load(c, ptx, &m, &err) != JIT_OK) {
    fprintf(stderr, "load %s: %s\n", vecadd_ptx, ptx ? err.msg : "cannot read");
    exit(1);
  }
  free(ptx);
  return m;
}

/* c = a + b over n floats on the device, compared with a C loop, the launch asking for shared
 * bytes of dynamic shared memory (which vecadd leaves unused); 0 or the status. */
static int vecadd_shared(sj_cuda *c, void *fn, int n, unsigned block, unsigned shared,
                         sj_error *err) {
  size_t bytes = (size_t)n * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *out = malloc(bytes);
  for (int i = 0; i < n; i++) a[i] = (float)i * 0.5f, b[i] = 1.0f / (float)(i + 1), out[i] = -1;
  sj_devptr da = 0, db = 0, dc = 0;
  unsigned grid[3] = {(unsigned)(n + (int)block - 1) / block, 1, 1}, blk[3] = {block, 1, 1};
  void *params[] = {&da, &db, &dc, &n};
  int st = sj_cuda_alloc(c, bytes, &da, err);
  if (!st) st = sj_cuda_alloc(c, bytes, &db, err);
  if (!st) st = sj_cuda_alloc(c, bytes, &dc, err);
  if (!st) st = sj_cuda_to_device(c, da, a, bytes, err);
  if (!st) st = sj_cuda_to_device(c, db, b, bytes, err);
  if (!st) st = sj_cuda_launch(c, fn, grid, blk, shared, params, err);
  if (!st) st = sj_cuda_synchronize(c, err);
  if (!st) st = sj_cuda_to_host(c, out, dc, bytes, err);
  for (int i = 0; !st && i < n; i++)
    if (out[i] != a[i] + b[i]) {
      st = sj_error_set(err, JIT_ERR_INTERNAL, "c[%d] = %g, expected %g", i, out[i], a[i] + b[i]);
    }
  sj_devptr bufs[] = {da, db, dc};
  for (int i = 0; i < 3; i++) {
    sj_error ferr = {0};
    int fst = sj_cuda_free(c, bufs[i], &ferr);
    if (fst && !st) *err = ferr, st = fst;
  }
  free(a), free(b), free(out);
  return st;
}

static int vecadd(sj_cuda *c, void *fn, int n, unsigned block, sj_error *err) {
  return vecadd_shared(c, fn, n, block, 0, err);
}

/* --- emulator (or any sm_90 driver) --- */

static void case_props(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  const sj_cuda_props *p = sj_cuda_get_props(c);
  CHECK(p->cc_major == 9 && p->cc_minor == 0, "cc %d.%d", p->cc_major, p->cc_minor);
  CHECK(p->multiprocessors == 132, "%d SMs", p->multiprocessors);
  CHECK(p->max_threads_per_block == 1024, "%d threads", p->max_threads_per_block);
  CHECK(p->warp_size == 32, "warp %d", p->warp_size);
  CHECK(!strcmp(p->ptx_version, "9.0"), "ptx_version %s (driver %d)", p->ptx_version,
        p->driver_version);
  CHECK(!strcmp(p->ptx_target, "sm_90"), "ptx_target %s", p->ptx_target);
  CHECK(p->name[0] && p->total_mem > 0, "name '%s', %zu bytes", p->name, p->total_mem);
  CHECK(p->max_block[0] >= 1024 && p->max_block[2] >= 1 && p->max_grid[0] >= 65535,
        "block %d %d %d grid %d", p->max_block[0], p->max_block[1], p->max_block[2],
        p->max_grid[0]);
  CHECK(p->shared_per_block > 0 && p->shared_per_block_optin >= p->shared_per_block,
        "shared %d opt-in %d", p->shared_per_block, p->shared_per_block_optin);
  CHECK(p->regs_per_block > 0, "regs %d", p->regs_per_block);
  sj_cuda_close(c);
}

static void case_vecadd(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_cuda_module *m = load_or_die(c);
  sj_error err = {0};
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  CHECK(fn, "%s", err.msg);
  int st = fn ? vecadd(c, fn, 1000, 128, &err) : 1;
  CHECK(st == JIT_OK, "%s", err.msg);
  CHECK(!sj_cuda_function(c, m, "nosuch", &err), "found a kernel that is not there");
  CHECK(contains(err.msg, "cuModuleGetFunction(\"nosuch\") failed"), "%s", err.msg);
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

static void case_bad_ptx(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_cuda_module *m = (sj_cuda_module *)&m;
  sj_error err = {0};
  const char *ptx = ".version 9.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry k()\n{\n  frobnicate.u32 %r1;\n  ret;\n}\n";
  int st = sj_cuda_load(c, ptx, &m, &err);
  CHECK(st == JIT_ERR_DEVICE && !m, "status %d", st);
  CHECK(contains(err.msg, "cuModuleLoadDataEx failed: CUDA_ERROR_"), "%s", err.msg);
  CHECK(contains(err.msg, "ptxas application ptx input, line 6"), "no log line: %s", err.msg);
  size_t n = strlen(err.msg);
  CHECK(n > 0 && err.msg[n - 1] != '\n', "log not trimmed: '%s'", err.msg);
  sj_cuda_close(c);
}

/* Each limit is refused by the layer itself ("launch refused"), naming the limit. */
static void case_limits(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  const sj_cuda_props *p = sj_cuda_get_props(c);
  sj_cuda_module *m = load_or_die(c);
  sj_error err = {0};
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  struct {
    unsigned grid[3], block[3], shared;
    const char *expect;
  } t[] = {
      {{1, 1, 1}, {2048, 1, 1}, 0, "max block dim x"},
      {{1, 1, 1}, {32, 32, 2}, 0, "max threads per block (1024)"},
      {{1, 1, 1}, {1024, 1, 2}, 0, "2048 threads, above the device's max threads per block"},
      {{1, 1, 1}, {1, 1, 65}, 0, "max block dim z"},
      {{0, 1, 1}, {32, 1, 1}, 0, "grid.x = 0"},
      {{1, 65536, 1}, {32, 1, 1}, 0, "max grid dim y"},
      {{1, 1, 1}, {0, 1, 1}, 0, "block.x = 0"},
      /* above 48 KB the kernel must opt in first (sj_cuda_allow_shared, case_shared) */
      {{1, 1, 1}, {32, 1, 1}, (unsigned)p->shared_per_block + 1, "kernel's max dynamic shared"},
      {{1, 1, 1},
       {32, 1, 1},
       (unsigned)p->shared_per_block_optin + 1,
       "max shared memory per block (232448 bytes with the opt-in"},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    int st = sj_cuda_launch(c, fn, t[i].grid, t[i].block, t[i].shared, NULL, &err);
    CHECK(st == JIT_ERR_DEVICE && contains(err.msg, "launch refused") &&
              contains(err.msg, t[i].expect),
          "case %zu: status %d: %s", i, st, err.msg);
  }
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

/* A kernel opts in to more than 48 KB of dynamic shared memory, up to the device's opt-in
 * maximum, and its launches may then ask for it; beyond the maximum the opt-in is refused,
 * saying why, and a launch that asks for more than the kernel opted in to is refused before it
 * reaches the driver. */
static void case_shared(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  const sj_cuda_props *p = sj_cuda_get_props(c);
  sj_cuda_module *m = load_or_die(c);
  sj_error err = {0};
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  unsigned optin = (unsigned)p->shared_per_block_optin, more = (unsigned)p->shared_per_block + 4096;
  CHECK(sj_cuda_shared_limit(c) == p->shared_per_block_optin && optin > more, "limit %d, opt-in %u",
        sj_cuda_shared_limit(c), optin);
  int st = sj_cuda_allow_shared(c, fn, optin + 16, &err);
  CHECK(st == JIT_ERR_DEVICE && contains(err.msg, "needs 232464 bytes of shared memory") &&
            contains(err.msg, "max shared memory per block (232448 bytes with the opt-in)"),
        "status %d: %s", st, err.msg);
  CHECK(sj_cuda_allow_shared(c, fn, more, &err) == JIT_OK, "%s", err.msg);
  unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  st = sj_cuda_launch(c, fn, grid, block, more + 16, NULL, &err);
  CHECK(st == JIT_ERR_DEVICE && contains(err.msg, "launch refused") &&
            contains(err.msg, "kernel's max dynamic shared memory"),
        "status %d: %s", st, err.msg);
  CHECK(vecadd_shared(c, fn, 1000, 128, more, &err) == JIT_OK, "within the opt-in: %s", err.msg);
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

/* Events around a launch: the elapsed time (on the emulator its own run time on this CPU). */
static int timed_vecadd(sj_cuda *c, void *fn, float *ms, sj_error *err) {
  sj_cuda_event *e0 = NULL, *e1 = NULL;
  int st = sj_cuda_event_create(c, &e0, err);
  if (!st) st = sj_cuda_event_create(c, &e1, err);
  if (!st) st = sj_cuda_event_record(c, e0, err);
  if (!st) st = vecadd(c, fn, 1000, 128, err);
  if (!st) st = sj_cuda_event_record(c, e1, err);
  if (!st) st = sj_cuda_event_elapsed(c, e0, e1, ms, err);
  sj_cuda_event_destroy(c, e0);
  sj_cuda_event_destroy(c, e1);
  return st;
}

static void case_events(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_cuda_module *m = load_or_die(c);
  sj_error err = {0};
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  float ms = -1;
  CHECK(fn && timed_vecadd(c, fn, &ms, &err) == JIT_OK, "%s", err.msg);
  CHECK(ms >= 0 && ms < 60000, "elapsed %g ms", (double)ms);
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

/* JIT_EMU_FAIL=event:N fails each event call of a timed run in turn: an error naming it, and
 * the layer works on afterwards. */
static void case_fail_event(const char *lib) {
  static const char *const calls[] = {"cuEventCreate", "cuEventCreate",      "cuEventRecord",
                                      "cuEventRecord", "cuEventSynchronize", "cuEventElapsedTime"};
  for (int n = 1; n <= 6; n++) {
    char spec[32];
    snprintf(spec, sizeof spec, "event:%d", n);
    setenv("JIT_EMU_FAIL", spec, 1);
    sj_cuda *c = open_or_die(lib);
    sj_cuda_module *m = load_or_die(c);
    sj_error err = {0};
    void *fn = sj_cuda_function(c, m, "vecadd", &err);
    float ms = -1;
    int st = fn ? timed_vecadd(c, fn, &ms, &err) : -1;
    CHECK(st == JIT_ERR_DEVICE && contains(err.msg, calls[n - 1]) &&
              contains(err.msg, "injected failure"),
          "%s: status %d: %s", spec, st, err.msg);
    CHECK(fn && timed_vecadd(c, fn, &ms, &err) == JIT_OK, "%s: afterwards: %s", spec, err.msg);
    sj_cuda_unload(c, m);
    sj_cuda_close(c);
  }
  unsetenv("JIT_EMU_FAIL");
}

/* JIT_EMU_FAIL=free:1: the failure is reported, and later frees work. */
static void case_fail_free(const char *lib) {
  setenv("JIT_EMU_FAIL", "free:1", 1);
  sj_cuda *c = open_or_die(lib);
  sj_error err = {0};
  sj_devptr p, q;
  CHECK(sj_cuda_alloc(c, 64, &p, &err) == JIT_OK && sj_cuda_alloc(c, 64, &q, &err) == JIT_OK, "%s",
        err.msg);
  CHECK(sj_cuda_free(c, p, &err) == JIT_ERR_DEVICE && contains(err.msg, "cuMemFree_v2 failed"),
        "%s", err.msg);
  CHECK(sj_cuda_free(c, q, &err) == JIT_OK, "%s", err.msg);
  CHECK(!sj_cuda_lost(c), "a failed free lost the context");
  sj_cuda_close(c); /* p goes with the context */
  unsetenv("JIT_EMU_FAIL");
}

/* A linked image loads and runs like the PTX it came from; bad PTX fails the link with the
 * log's line. */
static void case_link(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  char *ptx = sj_read_file(SJ_TEST_VECADD_PTX, NULL);
  void *image = NULL;
  size_t size = 0;
  sj_error err = {0};
  CHECK(ptx && sj_cuda_link(c, ptx, &image, &size, &err) == JIT_OK && image && size, "link: %s",
        err.msg);
  sj_cuda_module *m = NULL;
  CHECK(image && sj_cuda_load(c, image, &m, &err) == JIT_OK, "load the image: %s", err.msg);
  void *fn = m ? sj_cuda_function(c, m, "vecadd", &err) : NULL;
  CHECK(fn && vecadd(c, fn, 1000, 128, &err) == JIT_OK, "%s", err.msg);
  sj_cuda_unload(c, m);
  free(image);
  const char *bad = ".version 9.0\n.target sm_90\n.address_size 64\n"
                    ".visible .entry k()\n{\n  frobnicate.u32 %r1;\n  ret;\n}\n";
  CHECK(sj_cuda_link(c, bad, &image, &size, &err) == JIT_ERR_DEVICE && !image, "linked bad PTX");
  CHECK(contains(err.msg, "cuLinkAddData_v2 failed") && contains(err.msg, "line 6"), "%s", err.msg);
  sj_cuda_close(c);
  /* JIT_EMU_FAIL=link:N fails each call of a link in turn; the next link works */
  static const char *const calls[] = {"cuLinkCreate_v2", "cuLinkAddData_v2", "cuLinkComplete"};
  for (int n = 1; n <= 3; n++) {
    char spec[32];
    snprintf(spec, sizeof spec, "link:%d", n);
    setenv("JIT_EMU_FAIL", spec, 1);
    c = open_or_die(lib);
    CHECK(sj_cuda_link(c, ptx, &image, &size, &err) == JIT_ERR_DEVICE &&
              contains(err.msg, calls[n - 1]) && contains(err.msg, "injected failure"),
          "%s: %s", spec, err.msg);
    CHECK(sj_cuda_link(c, ptx, &image, &size, &err) == JIT_OK, "%s: afterwards: %s", spec, err.msg);
    free(image);
    sj_cuda_close(c);
  }
  unsetenv("JIT_EMU_FAIL");
  free(ptx);
}

/* JIT_EMU_FAIL=alloc:1: the first allocation fails, the next ones work. */
static void case_fail_alloc(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_error err = {0};
  sj_devptr p = 1;
  int st = sj_cuda_alloc(c, 4096, &p, &err);
  CHECK(st == JIT_ERR_DEVICE && p == 0, "status %d", st);
  CHECK(contains(err.msg, "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"), "%s",
        err.msg);
  st = sj_cuda_alloc(c, 4096, &p, &err);
  CHECK(st == JIT_OK && p, "second alloc: %s", err.msg);
  CHECK(sj_cuda_free(c, p, &err) == JIT_OK, "%s", err.msg);
  sj_cuda_close(c);
}

/* JIT_EMU_FAIL=load:1: the first load fails with the emulator's log, the next works. */
static void case_fail_load(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  char *ptx = sj_read_file(vecadd_ptx, NULL);
  sj_cuda_module *m;
  sj_error err = {0};
  int st = sj_cuda_load(c, ptx, &m, &err);
  CHECK(st == JIT_ERR_DEVICE, "status %d", st);
  CHECK(contains(err.msg, "cuModuleLoadDataEx failed: CUDA_ERROR_"), "%s", err.msg);
  const char *expect = getenv("EXPECT_MESSAGE");
  CHECK(!expect || contains(err.msg, expect), "no '%s' in: %s", expect, err.msg);
  st = sj_cuda_load(c, ptx, &m, &err);
  CHECK(st == JIT_OK, "second load: %s", err.msg);
  if (!st) sj_cuda_unload(c, m);
  free(ptx);
  sj_cuda_close(c);
}

/* JIT_EMU_FAIL=launch:1 (emulator) or MOCK_CUDA_LAUNCH=<code> (mock). */
static void case_fail_launch(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_cuda_module *m = load_or_die(c);
  sj_error err = {0};
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  int st = vecadd(c, fn, 100, 64, &err);
  CHECK(st == JIT_ERR_DEVICE, "status %d: %s", st, err.msg);
  CHECK(contains(err.msg, "cuLaunchKernel failed: "), "%s", err.msg);
  CHECK(sj_cuda_lost(c), "CUDA_ERROR_LAUNCH_FAILED is sticky: the context is lost");
  const char *expect = getenv("EXPECT_MESSAGE");
  CHECK(!expect || contains(err.msg, expect), "no '%s' in: %s", expect, err.msg);
  printf("message: %s\n", err.msg);
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

/* sj_cuda_open(NULL) takes $JIT_CUDA_LIBRARY. */
static void case_env_library(const char *lib) {
  setenv("JIT_CUDA_LIBRARY", lib, 1);
  sj_cuda *c = open_or_die(NULL);
  sj_cuda_close(c);
  setenv("JIT_CUDA_LIBRARY", "/nonexistent/libcuda-env.so", 1);
  sj_error err = {0};
  CHECK(sj_cuda_open(NULL, &c, &err) == JIT_ERR_DEVICE, "opened a library that is not there");
  CHECK(contains(err.msg, "/nonexistent/libcuda-env.so"), "%s", err.msg);
}

/* The context is made current on whichever thread calls. */
typedef struct thread_job {
  sj_cuda *c;
  void *fn;
  int status;
  sj_error err;
} thread_job;

static void *thread_run(void *p) {
  thread_job *j = p;
  j->status = vecadd(j->c, j->fn, 777, 96, &j->err);
  return NULL;
}

static void case_threads(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_cuda_module *m = load_or_die(c);
  sj_error err = {0};
  thread_job jobs[4];
  pthread_t th[4];
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  for (int i = 0; i < 4; i++) {
    jobs[i] = (thread_job){c, fn, -1, {0}};
    pthread_create(&th[i], NULL, thread_run, &jobs[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK(jobs[i].status == JIT_OK, "thread %d: %s", i, jobs[i].err.msg);
  }
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

/* --- any machine --- */

static void case_no_library(const char *lib) {
  (void)lib;
  sj_cuda *c = (sj_cuda *)&c;
  sj_error err = {0};
  int st = sj_cuda_open("/nonexistent/libcuda.so.1", &c, &err);
  CHECK(st == JIT_ERR_DEVICE && !c, "status %d", st);
  CHECK(contains(err.msg, "cannot load CUDA driver library /nonexistent/libcuda.so.1: ") &&
            contains(err.msg, "No such file"),
        "%s", err.msg);
}

/* A library that loads but is no CUDA driver: the first missing entry point is named. */
static void case_no_symbol(const char *lib) {
  sj_cuda *c;
  sj_error err = {0};
  int st = sj_cuda_open(lib, &c, &err);
  CHECK(st == JIT_ERR_DEVICE, "status %d", st);
  CHECK(contains(err.msg, "has no symbol cuInit"), "%s", err.msg);
}

/* The toolkit's stub libcuda: every symbol resolves, cuInit says it is a stub. */
static void case_stub(const char *lib) {
  sj_cuda *c;
  sj_error err = {0};
  int st = sj_cuda_open(lib, &c, &err);
  CHECK(st == JIT_ERR_DEVICE && contains(err.msg, "cuInit failed: ") &&
            contains(err.msg, "CUDA_ERROR_STUB_LIBRARY"),
        "status %d: %s", st, err.msg);
}

/* --- mock driver only --- */

static int *mock_counter(const char *lib, const char *name) {
  void *h = dlopen(lib, RTLD_NOW); /* kept open: the counters outlive sj_cuda_close */
  int *v = h ? dlsym(h, name) : NULL;
  if (!v) fprintf(stderr, "%s: no %s\n", lib, name), exit(1);
  return v;
}

static void case_mock_versions(const char *lib) {
  static const struct {
    const char *driver, *cc, *ptx, *error;
  } t[] = {
      {"11080", "80", "7.8", NULL},
      {"11010", "86", "7.1", NULL},
      {"12000", "90", "8.0", NULL},
      {"12040", "89", "8.4", NULL},
      {"12050", "90", "8.5", NULL},
      {"12060", "90", "8.5", NULL},
      {"12080", "120", "8.7", NULL},
      {"12090", "100", "8.8", NULL},
      {"13000", "90", "9.0", NULL},
      {"13010", "120", "9.1", NULL},
      {"11040", "89", NULL, "accepts PTX ISA up to 7.4 but sm_89 needs 7.8"},
      {"12040", "100", NULL, "accepts PTX ISA up to 8.4 but sm_100 needs 8.6"},
      {"10020", "75", NULL, "CUDA driver 10.2 is too old"},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    setenv("MOCK_CUDA_DRIVER", t[i].driver, 1);
    setenv("MOCK_CUDA_CC", t[i].cc, 1);
    sj_cuda *c = NULL;
    sj_error err = {0};
    int st = sj_cuda_open(lib, &c, &err);
    if (t[i].ptx) {
      char target[16];
      snprintf(target, sizeof target, "sm_%s", t[i].cc);
      CHECK(st == JIT_OK, "%s/%s: %s", t[i].driver, t[i].cc, err.msg);
      if (st) continue;
      const sj_cuda_props *p = sj_cuda_get_props(c);
      CHECK(!strcmp(p->ptx_version, t[i].ptx) && !strcmp(p->ptx_target, target), "%s/%s: %s %s",
            t[i].driver, t[i].cc, p->ptx_version, p->ptx_target);
      sj_cuda_close(c);
    } else {
      CHECK(st == JIT_ERR_DEVICE && !c && contains(err.msg, t[i].error), "%s/%s: %d %s",
            t[i].driver, t[i].cc, st, err.msg);
    }
  }
}

static void case_mock_no_device(const char *lib) {
  sj_cuda *c;
  sj_error err = {0};
  setenv("MOCK_CUDA_COUNT", "0", 1);
  CHECK(sj_cuda_open(lib, &c, &err) == JIT_ERR_DEVICE && contains(err.msg, "no CUDA device"), "%s",
        err.msg);
  setenv("MOCK_CUDA_COUNT", "1", 1);
  setenv("MOCK_CUDA_INIT", "100", 1);
  CHECK(sj_cuda_open(lib, &c, &err) == JIT_ERR_DEVICE &&
            contains(err.msg, "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is "
                              "detected)"),
        "%s", err.msg);
}

/* The primary context is retained once and released at close (through the plain
 * cuDevicePrimaryCtxRelease: the mock has no _v2); a failed open releases it too. */
static void case_mock_context(const char *lib) {
  int *retained = mock_counter(lib, "mock_retained");
  sj_cuda *c = open_or_die(lib);
  CHECK(*retained == 1, "retained %d", *retained);
  sj_cuda_close(c);
  CHECK(*retained == 0, "retained %d after close", *retained);
  case_threads(lib);
  CHECK(*retained == 0, "retained %d after threads", *retained);
}

static void case_mock_errors(const char *lib) {
  int *launches = mock_counter(lib, "mock_launches");
  sj_cuda *c = open_or_die(lib);
  sj_cuda_module *m;
  sj_error err = {0};
  int st = sj_cuda_load(c, "// mock_bad\n", &m, &err);
  CHECK(st == JIT_ERR_DEVICE &&
            contains(err.msg, "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT "
                              "compilation failed): mock ptx input, line 3; error: mock_bad") &&
            err.msg[strlen(err.msg) - 1] == 'd',
        "%s", err.msg);
  m = load_or_die(c);
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  unsigned grid[3] = {1, 1, 1}, block[3] = {512, 1, 1};
  setenv("MOCK_CUDA_FUNC_MAXT", "256", 1);
  st = sj_cuda_launch(c, fn, grid, block, 0, NULL, &err);
  CHECK(st == JIT_ERR_DEVICE && contains(err.msg, "the kernel's max threads per block (256"), "%s",
        err.msg);
  unsetenv("MOCK_CUDA_FUNC_MAXT");
  block[0] = 2048;
  st = sj_cuda_launch(c, fn, grid, block, 0, NULL, &err);
  CHECK(st == JIT_ERR_DEVICE && *launches == 0, "launched %d times", *launches);
  setenv("MOCK_CUDA_OOM", "1", 1);
  sj_devptr p;
  st = sj_cuda_alloc(c, 64, &p, &err);
  CHECK(st == JIT_ERR_DEVICE &&
            !strcmp(err.msg, "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory): 64 "
                             "bytes requested"),
        "%s", err.msg);
  unsetenv("MOCK_CUDA_OOM");
  setenv("MOCK_CUDA_LAUNCH", "4242", 1); /* a code cuGetErrorName does not know */
  st = vecadd(c, fn, 10, 32, &err);
  CHECK(st == JIT_ERR_DEVICE && !strcmp(err.msg, "cuLaunchKernel failed: CUresult 4242"), "%s",
        err.msg);
  unsetenv("MOCK_CUDA_LAUNCH");
  CHECK(vecadd(c, fn, 10, 32, &err) == JIT_OK, "%s", err.msg);
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

/* Events around launches: a positive time, the events released once. */
static void case_timer(const char *lib) {
  sj_cuda *c = open_or_die(lib);
  sj_error err = {0};
  sj_cuda_timer t;
  int st = sj_cuda_timer_start(c, &t, &err);
  CHECK(st == JIT_OK, "%s", err.msg);
  sj_cuda_module *m = load_or_die(c);
  void *fn = sj_cuda_function(c, m, "vecadd", &err);
  CHECK(fn && vecadd(c, fn, 100000, 256, &err) == JIT_OK, "%s", err.msg);
  float ms = -1;
  CHECK(sj_cuda_timer_stop(c, &t, &ms, &err) == JIT_OK, "%s", err.msg);
  CHECK(ms > 0 && ms < 60e3, "%g ms around a launch", ms);
  sj_cuda_timer_free(c, &t);
  sj_cuda_timer_free(c, &t); /* released once: a second call does nothing */
  printf("timer: %.3f ms around vecadd (with its copies)\n", ms);
  sj_cuda_unload(c, m);
  sj_cuda_close(c);
}

static void case_emulator_path(const char *lib) {
  (void)lib;
  const char *p = sj_cuda_emulator_path();
  CHECK(p && *p, "empty emulator path");
  setenv("JIT_EMU_LIBRARY", "/some/where/libemu.so", 1);
  CHECK(!strcmp(sj_cuda_emulator_path(), "/some/where/libemu.so"), "%s", sj_cuda_emulator_path());
}

static const struct {
  const char *name;
  void (*run)(const char *lib);
} cases[] = {
    {"props", case_props},
    {"vecadd", case_vecadd},
    {"bad_ptx", case_bad_ptx},
    {"limits", case_limits},
    {"shared", case_shared},
    {"fail_alloc", case_fail_alloc},
    {"fail_load", case_fail_load},
    {"fail_launch", case_fail_launch},
    {"events", case_events},
    {"fail_event", case_fail_event},
    {"fail_free", case_fail_free},
    {"link", case_link},
    {"env_library", case_env_library},
    {"threads", case_threads},
    {"no_library", case_no_library},
    {"no_symbol", case_no_symbol},
    {"stub", case_stub},
    {"mock_versions", case_mock_versions},
    {"mock_no_device", case_mock_no_device},
    {"mock_context", case_mock_context},
    {"mock_errors", case_mock_errors},
    {"emulator_path", case_emulator_path},
    {"timer", case_timer},
};

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s CASE LIBRARY [VECADD.ptx]\n", argv[0]);
    return 2;
  }
  if (argc == 4) vecadd_ptx = argv[3];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (strcmp(cases[i].name, argv[1])) continue;
    cases[i].run(argv[2]);
    if (failures) fprintf(stderr, "%s: %d check(s) failed\n", argv[1], failures);
    return failures != 0;
  }
  fprintf(stderr, "unknown case %s\n", argv[1]);
  return 2;
}
