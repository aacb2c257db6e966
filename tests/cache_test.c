/* The kernel caches through the library: compiled artifacts in the on-disk cache (reused
 * across contexts and processes, damaged entries rebuilt, the off switch, cubins from a
 * driver that links) and the in-memory cache's bound, use order and clearing.
 *
 *   cache_test CASE [MOCK_LIBCUDA]    (the disk cases use a fresh directory each) */
#include "jit/artifact.h"
#include "jit/diskcache.h"
#include "jit/jit.h"
#include "cache_util.h"

#include "base/file.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *src; /* tests/kernels/jacobi2d_5pt.c */

static void fresh_dir(void) {
  make_dir();
  setenv("JIT_CACHE_DIR", dir, 1);
  unsetenv("JIT_CACHE");
  unsetenv("JIT_CACHE_SIZE");
}

static void remove_dir(void) {
  remove_tree(dir);
}

static jit_context *context(jit_device dev) {
  jit_context *ctx = jit_context_create(dev);
  if (!ctx) {
    fprintf(stderr, "context: %s\n", jit_last_error());
    exit(2);
  }
  return ctx;
}

static jit_kernel *compile(jit_context *ctx, int n) {
  jit_arg args[] = {JIT_INT(3), JIT_INT(n), JIT_INT(13), JIT_PTR(NULL)};
  jit_kernel *k = NULL;
  int rc = jit_kernel_compile(ctx, src, NULL, args, 4, &k);
  CHECK(rc == 0, "compile N=%d: %s", n, jit_context_error(ctx));
  return k;
}

/* Runs the shape N=n on the context and on the reference: bit for bit the same? */
static int runs_exactly(jit_context *ctx, int n) {
  size_t elems = 2 * (size_t)n * 13;
  float *a = malloc(elems * sizeof *a), *b = malloc(elems * sizeof *b);
  for (size_t i = 0; i < elems; i++) a[i] = b[i] = (float)((i * 37) % 101) / 7.0f;
  jit_arg x[] = {JIT_INT(3), JIT_INT(n), JIT_INT(13), JIT_PTR(a)};
  jit_arg y[] = {JIT_INT(3), JIT_INT(n), JIT_INT(13), JIT_PTR(b)};
  int ok = jit_stencil_run(ctx, src, NULL, x, 4) == 0 &&
           jit_reference_run(ctx, src, NULL, y, 4) == 0 && !memcmp(a, b, elems * sizeof *a);
  if (!ok) fprintf(stderr, "N=%d: %s\n", n, jit_context_error(ctx));
  free(a);
  free(b);
  return ok;
}

static jit_stats stats(jit_context *ctx) {
  jit_stats s;
  jit_context_stats(ctx, &s);
  return s;
}

static void case_disk_reuse(void) {
  fresh_dir();
  jit_context *a = context(JIT_DEVICE_EMU);
  jit_kernel *ka = compile(a, 20);
  jit_stats s = stats(a);
  CHECK(s.disk_hits == 0 && s.disk_writes == 1, "first: %lu hits, %lu writes", s.disk_hits,
        s.disk_writes);
  CHECK(files_of("cubin", NULL, 0) == 1, "%d images", files_of("cubin", NULL, 0));
  /* Another context (as another process would): the image comes from the disk. */
  jit_context *b = context(JIT_DEVICE_EMU);
  jit_kernel *kb = compile(b, 20);
  s = stats(b);
  CHECK(s.disk_hits == 1 && s.disk_writes == 0, "second: %lu hits, %lu writes", s.disk_hits,
        s.disk_writes);
  CHECK(runs_exactly(b, 20), "the kernel from disk is not bit-identical");
  /* Another shape, fast math or another device is another entry. */
  jit_kernel_release(compile(b, 21));
  jit_options o = {0};
  o.fast_math = 1;
  jit_context_set_options(b, &o);
  jit_kernel_release(compile(b, 20));
  CHECK(files_of("cubin", NULL, 0) == 3, "%d images for 3 keys", files_of("cubin", NULL, 0));
  jit_context *cpu = context(JIT_DEVICE_CPU);
  jit_kernel_release(compile(cpu, 20));
  CHECK(stats(cpu).disk_hits == 0, "the CPU device used a GPU artifact");
  jit_kernel_release(ka);
  jit_kernel_release(kb);
  jit_context_destroy(a);
  jit_context_destroy(b);
  jit_context_destroy(cpu);
  remove_dir();
}

/* An image is used only for the PTX it was linked from: another compile of the same call may
 * decide otherwise (isl's work is bounded by CPU time) and print other kernels for another
 * host loop, which must not run the first compile's kernels. */
static void case_disk_keyed_by_ptx(void) {
  fresh_dir();
  jit_context *a = context(JIT_DEVICE_EMU);
  jit_kernel *k = compile(a, 24);
  CHECK(k && files_of("cubin", NULL, 0) == 1, "no image stored");
  if (!k) return;
  char *printed = k->ptx;
  size_t n = strlen(printed);
  char *other = malloc(n + 64);
  memcpy(other, printed, n);
  strcpy(other + n, "// another compile's kernels\n");
  sj_cuda_module *loaded = k->module;
  k->ptx = other;
  sj_error err = {0, {0}};
  jit_stats before = stats(a);
  CHECK(sj_gpu_load_module(k, &err) == 0, "load: %s", err.msg);
  jit_stats after = stats(a);
  CHECK(after.disk_hits == before.disk_hits && after.disk_writes == before.disk_writes + 1,
        "other PTX: %lu hits, %lu writes (expected a new image)",
        after.disk_hits - before.disk_hits, after.disk_writes - before.disk_writes);
  CHECK(files_of("cubin", NULL, 0) == 2, "%d images for two PTX texts", files_of("cubin", NULL, 0));
  sj_cuda_unload(a->cuda, k->module);
  k->module = loaded;
  k->ptx = printed;
  free(other);
  /* The first text still finds its own image. */
  jit_context *b = context(JIT_DEVICE_EMU);
  jit_kernel_release(compile(b, 24));
  CHECK(stats(b).disk_hits == 1 && stats(b).disk_writes == 0, "same PTX: %lu hits, %lu writes",
        stats(b).disk_hits, stats(b).disk_writes);
  CHECK(runs_exactly(b, 24), "not bit-identical");
  jit_kernel_release(k);
  jit_context_destroy(a);
  jit_context_destroy(b);
  remove_dir();
}

static void case_disk_corrupt(void) {
  fresh_dir();
  jit_context *a = context(JIT_DEVICE_EMU);
  jit_kernel *k = compile(a, 28);
  char path[1024];
  CHECK(files_of("cubin", path, sizeof path) == 1, "no image");
  /* Damage the image in the middle of the file (a disk error, a crash mid-write on a file
   * system that reorders), keeping its size. */
  int fd = open(path, O_RDWR);
  struct stat st;
  fstat(fd, &st);
  CHECK(pwrite(fd, "XXXX", 4, st.st_size / 2) == 4, "damage");
  close(fd);
  jit_context *b = context(JIT_DEVICE_EMU);
  jit_kernel *kb = compile(b, 28);
  jit_stats s = stats(b);
  CHECK(s.disk_hits == 0 && s.disk_writes == 1,
        "damaged: %lu hits, %lu writes (expected the image linked again and written)", s.disk_hits,
        s.disk_writes);
  CHECK(runs_exactly(b, 28), "not bit-identical after a damaged entry");
  /* Cut short (a torn file): the same. */
  CHECK(files_of("cubin", path, sizeof path) == 1 && truncate(path, 100) == 0, "truncate");
  jit_context *c = context(JIT_DEVICE_EMU);
  jit_kernel_release(compile(c, 28));
  CHECK(stats(c).disk_writes == 1, "torn entry not rebuilt");
  jit_kernel_release(k);
  jit_kernel_release(kb);
  jit_context_destroy(a);
  jit_context_destroy(b);
  jit_context_destroy(c);
  remove_dir();
}

/* A driver that fails to link (or to load the image): the PTX is loaded as it is, and
 * nothing is stored. */
static void case_disk_link_fails(void) {
  fresh_dir();
  for (int call = 1; call <= 3; call++) {
    char spec[32];
    snprintf(spec, sizeof spec, "link:%d", call);
    setenv("JIT_EMU_FAIL", spec, 1);
    jit_context *a = context(JIT_DEVICE_EMU);
    CHECK(runs_exactly(a, 26 + call), "%s: not bit-identical", spec);
    CHECK(stats(a).disk_writes == 0, "%s: %lu images stored", spec, stats(a).disk_writes);
    jit_context_destroy(a);
  }
  setenv("JIT_EMU_FAIL", "load:1", 1);
  jit_context *b = context(JIT_DEVICE_EMU);
  CHECK(runs_exactly(b, 30), "load:1 (the image's): not bit-identical");
  jit_context_destroy(b);
  unsetenv("JIT_EMU_FAIL");
  remove_dir();
}

static void case_disk_off(void) {
  fresh_dir();
  setenv("JIT_CACHE", "off", 1);
  jit_context *a = context(JIT_DEVICE_EMU);
  jit_kernel_release(compile(a, 30));
  jit_stats s = stats(a);
  CHECK(s.disk_hits == 0 && s.disk_writes == 0, "JIT_CACHE=off: %lu hits, %lu writes", s.disk_hits,
        s.disk_writes);
  CHECK(files_of("cubin", NULL, 0) == 0, "JIT_CACHE=off wrote an entry");
  CHECK(runs_exactly(a, 30), "not bit-identical");
  jit_context_destroy(a);
  remove_dir();
}

/* Two processes compile and run the same shapes against one directory at once. */
static void case_disk_processes(void) {
  fresh_dir();
  pid_t pid[2];
  for (int w = 0; w < 2; w++) {
    if ((pid[w] = fork()) == 0) {
      jit_context *ctx = context(JIT_DEVICE_EMU);
      int bad = 0;
      for (int i = 0; i < 8; i++) bad += !runs_exactly(ctx, 16 + (w ? 7 - i : i));
      jit_context_destroy(ctx);
      _exit(bad);
    }
  }
  for (int w = 0; w < 2; w++) {
    int st = 0;
    waitpid(pid[w], &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d: status %d", w, st);
  }
  jit_context *ctx = context(JIT_DEVICE_EMU);
  for (int i = 0; i < 8; i++) jit_kernel_release(compile(ctx, 16 + i));
  CHECK(stats(ctx).disk_hits == 8, "%lu hits of 8 shapes", stats(ctx).disk_hits);
  jit_context_destroy(ctx);
  remove_dir();
}

/* A driver that links (the mock): the cubin is linked once, stored, and loaded from disk by
 * the next context instead of the PTX. */
static void case_disk_cubin(const char *mock) {
  fresh_dir();
  setenv("JIT_CUDA_LIBRARY", mock, 1);
  void *lib = dlopen(mock, RTLD_NOW | RTLD_LOCAL); /* the same handle the library gets */
  int *links = lib ? dlsym(lib, "mock_links") : NULL;
  int *cubins = lib ? dlsym(lib, "mock_cubin_loads") : NULL;
  if (!links || !cubins) {
    CHECK(0, "mock %s: %s", mock, dlerror());
    return;
  }
  jit_context *a = context(JIT_DEVICE_CUDA);
  jit_kernel *k = compile(a, 20);
  jit_stats s = stats(a);
  CHECK(*links == 1 && *cubins == 1, "first: %d links, %d cubin loads", *links, *cubins);
  CHECK(s.disk_writes == 1 && s.disk_hits == 0, "first: %lu writes, %lu hits", s.disk_writes,
        s.disk_hits);
  CHECK(files_of("cubin", NULL, 0) == 1, "no cubin entry");
  jit_context *b = context(JIT_DEVICE_CUDA);
  jit_kernel_release(compile(b, 20));
  s = stats(b);
  CHECK(*links == 1 && *cubins == 2, "second: %d links (expected none more), %d cubin loads",
        *links, *cubins);
  CHECK(s.disk_hits == 1 && s.disk_writes == 0, "second: %lu hits, %lu writes", s.disk_hits,
        s.disk_writes);
  /* Off: the PTX is loaded as it is, nothing linked. */
  setenv("JIT_CACHE", "off", 1);
  jit_context *c = context(JIT_DEVICE_CUDA);
  jit_kernel_release(compile(c, 20));
  CHECK(*links == 1 && *cubins == 2, "off: %d links, %d cubin loads", *links, *cubins);
  jit_kernel_release(k);
  jit_context_destroy(a);
  jit_context_destroy(b);
  jit_context_destroy(c);
  dlclose(lib);
  remove_dir();
}

static size_t heap_in_use(void) {
  return mallinfo2().uordblks + mallinfo2().hblkhd;
}

/* Many shapes on one context under a small bound: the estimate stays under it, and so does
 * the heap the kernels really take (not measurable under AddressSanitizer). */
static void memory_bound(jit_device device) {
  enum { SHAPES = 150 };
  const size_t bound = (size_t)3 << 20;
  setenv("JIT_CACHE", "off", 1);
  jit_context *ctx = context(device);
  jit_options o = {0};
  o.cache_bytes = bound;
  o.threads = 1;
  jit_context_set_options(ctx, &o);
  runs_exactly(ctx, 100); /* first-use costs (TinyCC, isl) outside the measurement */
  jit_context_clear_cache(ctx);
  size_t before = heap_in_use(), peak = 0;
  for (int s = 0; s < SHAPES; s++) {
    jit_kernel_release(compile(ctx, 10 + s));
    jit_stats st = stats(ctx);
    CHECK(st.cache_bytes <= bound, "after %d shapes the cache holds %zu bytes", s + 1,
          st.cache_bytes);
    if (heap_in_use() > before && heap_in_use() - before > peak) peak = heap_in_use() - before;
  }
  jit_stats st = stats(ctx);
  CHECK(st.evictions > 0 && st.cache_kernels < SHAPES, "%lu evictions, %zu kernels kept",
        st.evictions, st.cache_kernels);
  fprintf(stderr, "%d shapes: %zu kernels kept, %zu bytes estimated, heap growth peak %zu\n",
          SHAPES, st.cache_kernels, st.cache_bytes, peak);
#if !defined(__SANITIZE_ADDRESS__)
  CHECK(peak <= bound, "the heap grew by %zu bytes, above the bound %zu", peak, bound);
#endif
  CHECK(runs_exactly(ctx, 10 + SHAPES - 1), "the newest kernel is not bit-identical");
  jit_context_destroy(ctx);
}

static void case_memory_bound_cpu(void) {
  memory_bound(JIT_DEVICE_CPU);
}
static void case_memory_bound_emu(void) {
  memory_bound(JIT_DEVICE_EMU);
}

/* Kernels go least recently used first. */
static void case_memory_lru(void) {
  setenv("JIT_CACHE", "off", 1);
  jit_context *ctx = context(JIT_DEVICE_CPU);
  jit_kernel_release(compile(ctx, 40));
  size_t one = stats(ctx).cache_bytes;
  jit_options o = {0};
  o.cache_bytes = one * 7 / 2; /* three kernels of about this size */
  jit_context_set_options(ctx, &o);
  jit_context_clear_cache(ctx);
  jit_kernel_release(compile(ctx, 40));
  jit_kernel_release(compile(ctx, 41));
  jit_kernel_release(compile(ctx, 42));
  jit_kernel_release(compile(ctx, 40)); /* a hit: 41 is now the least recently used */
  jit_kernel_release(compile(ctx, 43));
  jit_stats s = stats(ctx);
  CHECK(s.compiles == 5 && s.evictions == 1 && s.cache_kernels == 3,
        "%lu compiles, %lu evictions, %zu kept", s.compiles, s.evictions, s.cache_kernels);
  jit_kernel_release(compile(ctx, 40));
  CHECK(stats(ctx).compiles == 5, "40 was evicted although used recently");
  jit_kernel_release(compile(ctx, 41));
  CHECK(stats(ctx).compiles == 6, "41 was kept although the least recently used");
  jit_context_destroy(ctx);
}

static void case_clear(void) {
  setenv("JIT_CACHE", "off", 1);
  jit_context *ctx = context(JIT_DEVICE_CPU);
  jit_kernel *held = compile(ctx, 50);
  jit_kernel_release(compile(ctx, 51));
  CHECK(stats(ctx).cache_kernels == 2 && stats(ctx).cache_bytes > 0, "not cached");
  CHECK(jit_context_clear_cache(ctx) == 0, "clear");
  jit_stats s = stats(ctx);
  CHECK(s.cache_kernels == 0 && s.cache_bytes == 0, "after clear: %zu kernels, %zu bytes",
        s.cache_kernels, s.cache_bytes);
  /* A kernel the caller holds outlives the clear. */
  float a[2 * 50 * 13] = {0};
  jit_arg args[] = {JIT_INT(3), JIT_INT(50), JIT_INT(13), JIT_PTR(a)};
  CHECK(held && jit_kernel_run(held, args, 4) == 0, "held kernel after clear: %s",
        jit_context_error(ctx));
  jit_kernel_release(held);
  CHECK(runs_exactly(ctx, 51) && stats(ctx).compiles == 3, "not compiled again after clear");
  CHECK(jit_context_clear_cache(NULL) == JIT_ERR_ARGS, "NULL context");
  jit_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const struct {
    const char *name;
    void (*run)(void);
  } cases[] = {{"disk_reuse", case_disk_reuse},
               {"disk_keyed_by_ptx", case_disk_keyed_by_ptx},
               {"disk_corrupt", case_disk_corrupt},
               {"disk_link_fails", case_disk_link_fails},
               {"disk_off", case_disk_off},
               {"disk_processes", case_disk_processes},
               {"memory_bound_cpu", case_memory_bound_cpu},
               {"memory_bound_emu", case_memory_bound_emu},
               {"memory_lru", case_memory_lru},
               {"clear", case_clear}};
  if (argc < 2) return fprintf(stderr, "usage: cache_test CASE [MOCK_LIBCUDA]\n"), 2;
  if (!(src = sj_read_file(SJ_TEST_JACOBI, NULL))) return perror(SJ_TEST_JACOBI), 2;
  if (!strcmp(argv[1], "disk_cubin") && argc == 3)
    case_disk_cubin(argv[2]);
  else {
    size_t i = 0;
    while (i < sizeof cases / sizeof *cases && strcmp(cases[i].name, argv[1])) i++;
    if (i == sizeof cases / sizeof *cases) return fprintf(stderr, "unknown case %s\n", argv[1]), 2;
    cases[i].run();
  }
  free(src);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
