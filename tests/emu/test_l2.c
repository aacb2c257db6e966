/* The L2 traffic model (JIT_EMU_STATS' l2_model_dram_bytes) on small kernels with a small L2
 * (JIT_EMU_L2_BYTES), against counts worked out by hand: a stream read twice that fits and one
 * that does not, stores written back once, the blocks of a wave advancing together between
 * barriers, as many as their shared memory lets a multiprocessor hold. And the instructions by
 * PTX line (JIT_EMU_PROFILE). Usage: test_l2 LIB SRCDIR (SRCDIR holds l2.ptx) */
#include <unistd.h>
#include "emu_test.h"

static char stats[] = "/tmp/emu_l2_XXXXXX";

/* The number after "key": in the last line of the file at path, -1 if absent. */
static long long last_field(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  char line[8192], last[8192] = "", pat[128];
  while (f && fgets(line, sizeof line, f)) strcpy(last, line);
  if (f) fclose(f);
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(last, pat);
  return p ? atoll(p + strlen(pat)) : -1;
}

/* A counter of the last launch's JSON line. */
static long long stat_of(const char *key) {
  return last_field(stats, key);
}

static void l2_size(long bytes) {
  char v[32];
  snprintf(v, sizeof v, "%ld", bytes);
  setenv("JIT_EMU_L2_BYTES", v, 1);
}

/* One thread reads n floats twice: once from DRAM when they fit, twice when a sequential
 * scan longer than the L2 evicts every sector before its second use (LRU). */
static void stream(CUfunction f, CUdeviceptr in, CUdeviceptr out) {
  static const struct {
    unsigned n;
    long l2;
    long long dram;
  } cases[] = {
      {512, 4096, 512 * 4 + 32},              /* 64 sectors in 128: read once, the sum written */
      {2048, 4096, 2 * 2048 * 4 + 32},        /* 256 sectors in 128: read twice */
      {2048, 1 << 20, 2048 * 4 + 32},         /* the same stream in a large L2: once */
      {1000, 2048, 2 * (1000 / 8) * 32 + 32}, /* 125 sectors in 64 */
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    l2_size(cases[k].l2);
    unsigned n = cases[k].n;
    void *args[] = {&in, &out, &n};
    CU(cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    long long got = stat_of("l2_model_dram_bytes");
    if (got != cases[k].dram)
      fprintf(stderr, "stream of %u floats, L2 %ld: %lld DRAM bytes, expected %lld\n", n,
              cases[k].l2, got, cases[k].dram);
    CHECK(got == cases[k].dram);
    CHECK(stat_of("l2_model_bytes") == cases[k].l2);
    CHECK(stat_of("unique_sectors") == (long long)(n + 7) / 8 + 1);
  }
}

/* The line of ptx that starts with text (after its indent), counted from 1; 0 if none. */
static int line_of(const char *ptx, const char *text) {
  int line = 1;
  for (const char *p = ptx; *p; p++) {
    if (p == ptx || p[-1] == '\n') {
      const char *q = p;
      while (*q == '\t' || *q == ' ') q++;
      if (!strncmp(q, text, strlen(text))) return line;
    }
    if (*p == '\n') line++;
  }
  return 0;
}

/* A line's count in the last launch's profile line, -1 if absent. */
static long long profiled(const char *path, int line) {
  char key[32];
  snprintf(key, sizeof key, "%d", line);
  return last_field(path, key);
}

/* JIT_EMU_PROFILE: the threads that ran each line, which sum to the launch's instructions: one
 * thread reads n floats twice (the loop's load 2n times, the final store once); a line that
 * never ran is left out. */
static void profile(CUfunction f, const char *ptx, CUdeviceptr in, CUdeviceptr out) {
  char path[] = "/tmp/emu_profile_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) abort();
  close(fd);
  setenv("JIT_EMU_PROFILE", path, 1);
  unsigned n = 100;
  void *args[] = {&in, &out, &n};
  CU(cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
  unsetenv("JIT_EMU_PROFILE");
  CHECK(profiled(path, line_of(ptx, "ld.global.f32 %f2, [%rd4];")) == 2 * n);
  CHECK(profiled(path, line_of(ptx, "st.global.f32 [%rd2], %f1;")) == 1);
  CHECK(profiled(path, line_of(ptx, "mov.u32 %r3, 0;")) == 1);
  CHECK(profiled(path, line_of(ptx, ".visible .entry fill")) == -1);
  FILE *p = fopen(path, "r");
  char buf[8192] = "";
  CHECK(p && fgets(buf, sizeof buf, p));
  if (p) fclose(p);
  long long sum = 0;
  for (const char *c = strstr(buf, "\"lines\":{"); c && (c = strchr(c, ':'));) sum += atoll(++c);
  CHECK(sum == stat_of("instructions"));
  unlink(path);
}

/* Stores only: every written sector goes to DRAM once, at eviction or at the end. */
static void stores(CUfunction f, CUdeviceptr out) {
  for (long l2 = 1024; l2 <= (1 << 20); l2 *= 32) {
    l2_size(l2);
    unsigned n = 4000;
    void *args[] = {&out, &n};
    CU(cu.cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CHECK(stat_of("l2_model_dram_bytes") == 4000 * 4);
  }
}

/* 64 blocks each read their own 1 KB twice with a barrier between: the blocks are resident
 * together, so all first reads come before the second ones. A 16 KB L2 holds one block's
 * chunk but not the wave's 64 KB: the second reads miss too. */
static void wave(CUfunction f, CUdeviceptr in, CUdeviceptr out) {
  void *args[] = {&in, &out};
  long long chunks = 64 * 1024, sums = 64 * 32 * 4;
  l2_size(16 * 1024);
  CU(cu.cuLaunchKernel(f, 64, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
  CHECK(stat_of("wave_blocks") == 64);
  CHECK(stat_of("l2_model_dram_bytes") == 2 * chunks + sums);
  l2_size(1 << 20);
  CU(cu.cuLaunchKernel(f, 64, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
  CHECK(stat_of("l2_model_dram_bytes") == chunks + sums);
  /* the results do not depend on the order blocks run in */
  float host[64 * 32], sum[64 * 32];
  CU(cu.cuMemcpyDtoH_v2(sum, out, sizeof sum));
  unsetenv("JIT_EMU_STATS");
  CU(cu.cuLaunchKernel(f, 64, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
  CU(cu.cuMemcpyDtoH_v2(host, out, sizeof host));
  CHECK(memcmp(host, sum, sizeof sum) == 0);
  setenv("JIT_EMU_STATS", stats, 1);
}

/* A block's dynamic shared memory, and the 1 KB the system reserves for it, count against the
 * multiprocessor's 228 KB: fewer blocks are resident together, and the launch's line gives
 * its shared memory. fill has no static shared memory; 600 blocks of 128 threads. */
static void shared_wave(CUfunction f, CUdeviceptr out) {
  static const struct {
    unsigned shared;
    long long wave;
  } cases[] = {
      {0, 600},               /* 16 blocks per multiprocessor by its threads: the whole grid */
      {100 * 1024, 264},      /* 2 per multiprocessor */
      {113 * 1024, 264},      /* 2 x (113 + 1) KB = 228 KB: still 2 */
      {113 * 1024 + 16, 132}, /* one */
  };
  unsigned n = 4000;
  void *args[] = {&out, &n};
  l2_size(1 << 20);
  CU(cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024));
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    CU(cu.cuLaunchKernel(f, 600, 1, 1, 128, 1, 1, cases[k].shared, NULL, args, NULL));
    CHECK(stat_of("wave_blocks") == cases[k].wave);
    CHECK(stat_of("shared_bytes") == cases[k].shared);
    CHECK(stat_of("dynamic_shared_bytes") == cases[k].shared);
    CHECK(stat_of("l2_model_dram_bytes") == 4000 * 4);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIB SRCDIR\n", argv[0]);
    return 2;
  }
  int fd = mkstemp(stats);
  if (fd < 0) return 1;
  close(fd);
  setenv("JIT_EMU_STATS", stats, 1);
  CUcontext ctx;
  setup(argv[1], &ctx);
  char *ptx = read_file(argv[2], "l2.ptx"), log[4096];
  CUmodule m;
  CU(load_ptx(&m, ptx, log, sizeof log));
  CUfunction twice, fill, chunk2;
  CU(cu.cuModuleGetFunction(&twice, m, "twice"));
  CU(cu.cuModuleGetFunction(&fill, m, "fill"));
  CU(cu.cuModuleGetFunction(&chunk2, m, "chunk2"));
  float *host = malloc(64 * 1024);
  for (int i = 0; i < 64 * 256; i++) host[i] = (float)(i % 13);
  CUdeviceptr in, out;
  CU(cu.cuMemAlloc_v2(&in, 64 * 1024));
  CU(cu.cuMemAlloc_v2(&out, 64 * 1024));
  CU(cu.cuMemcpyHtoD_v2(in, host, 64 * 1024));
  stream(twice, in, out);
  profile(twice, ptx, in, out);
  stores(fill, out);
  wave(chunk2, in, out);
  shared_wave(fill, out);
  /* the device reports the modeled L2's size */
  int l2 = 0;
  l2_size(123456);
  CU(cu.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0));
  CHECK(l2 == 123456);
  unsetenv("JIT_EMU_L2_BYTES");
  CU(cu.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0));
  CHECK(l2 == 50 * 1024 * 1024);
  free(host);
  free(ptx);
  unlink(stats);
  CU(cu.cuCtxDestroy_v2(ctx));
  return finish("test_l2");
}
