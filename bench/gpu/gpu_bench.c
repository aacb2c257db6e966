/* GPU-path benchmarks of issue 4, side by side in one run (not a test):
 *
 *   1. cold JIT latency, source text to PTX text, of jacobi-2d on the EMU device, against NVRTC
 *      compiling the same stencil written naively in CUDA C (bench/baselines/jacobi2d_naive.cu);
 *   2. emulator-modeled unique DRAM bytes per update of stenciljit's fp32 jacobi-2d at 1024^2;
 *   3. emulator-modeled dynamic PTX instructions per update, stenciljit against the naive kernel
 *      compiled by nvcc -O3 (bench/baselines/jacobi2d_naive.ptx), run in the same emulator.
 *
 * No GPU is involved: every count of items 2 and 3 is the PTX emulator's model and is labeled so;
 * only compile latencies are wall-clock times, measured on this machine's CPU.
 *
 * Usage: gpu_bench [--out RESULTS.md] [--emu LIB.so] [--naive-ptx FILE] [--naive-cu FILE]
 *                  [--nvrtc LIB.so] [--reps K] [-T T] [-N N] [-M M] [--strict]
 * Exit: 0 results written (1 on a harness error); with --strict, 3 when a target was missed or
 * could not be measured. */
#include <stenciljit.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/cuda_abi.h"
#include "bench/common.h"
#include "base/file.h"
#include "host/cuda.h"

#ifndef SJ_NAIVE_PTX
#define SJ_NAIVE_PTX "bench/baselines/jacobi2d_naive.ptx"
#endif
#ifndef SJ_NAIVE_CU
#define SJ_NAIVE_CU "bench/baselines/jacobi2d_naive.cu"
#endif
#ifndef SJ_NVRTC_LIBRARY
#define SJ_NVRTC_LIBRARY ""
#endif

/* The kernel of the issue, exactly as the blueprint writes it. */
static const char jacobi2d_src[] =
    "void jacobi2d(int T, int N, int M, float A[2][N][M]) {\n"
    "  for (int t = 0; t < T; t++)\n"
    "    for (int i = 1; i < N - 1; i++)\n"
    "      for (int j = 1; j < M - 1; j++)\n"
    "        A[(t+1)%2][i][j] = 0.2f * (A[t%2][i][j] + A[t%2][i-1][j] + A[t%2][i+1][j]\n"
    "                                   + A[t%2][i][j-1] + A[t%2][i][j+1]);\n"
    "}\n";

/* Targets of issue 4. */
#define TARGET_PTX_MS 20.0
#define TARGET_NVRTC_RATIO 0.2
#define TARGET_UNIQUE_BYTES 8.5

enum { MAX_REPS = 100, NSHAPES = 3 };

/* ---------------------------------------------------------------- utilities */

/* Short notes collected during the run; printed under the table. */
static char notes[16][512];
static int nnotes;
static void note(const char *fmt, ...) {
  if (nnotes == 16) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(notes[nnotes++], sizeof notes[0], fmt, ap);
  va_end(ap);
}

/* The C function itself (this file is compiled with -ffp-contract=off). */
static void jacobi2d_ref(int T, int N, int M, float *A) {
  size_t plane = (size_t)N * M;
  for (int t = 0; t < T; t++) {
    const float *in = A + (size_t)(t % 2) * plane;
    float *out = A + (size_t)((t + 1) % 2) * plane;
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < M - 1; j++) {
        size_t c = (size_t)i * M + j;
        out[c] = 0.2f * (in[c] + in[c - M] + in[c + M] + in[c - 1] + in[c + 1]);
      }
  }
}

/* ---------------------------------------------------------------- emulator statistics */

/* Sums of the per-launch JSON lines the emulator appends to $JIT_EMU_STATS. */
typedef struct emu_sums {
  int launches;
  unsigned long long instructions, unique_sectors, global_sectors, load_req, store_req;
  unsigned long long load_bytes, store_bytes;
  char kernels[256];  /* distinct kernel names, comma separated */
  char geometry[128]; /* grid x block of the first launch */
} emu_sums;

static int json_u64(const char *line, const char *key, unsigned long long *out) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(line, pat);
  if (!p) return 0;
  char *end;
  errno = 0;
  *out = strtoull(p + strlen(pat), &end, 10);
  return errno == 0 && end != p + strlen(pat);
}

static int json_str(const char *line, const char *key, char *out, size_t cap) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":\"", key);
  const char *p = strstr(line, pat);
  if (!p || cap == 0) return 0;
  p += strlen(pat);
  size_t n = 0;
  for (; *p && *p != '"' && n + 1 < cap; p++) {
    if (*p == '\\' && p[1]) p++;
    out[n++] = *p;
  }
  out[n] = '\0';
  return 1;
}

static int json_dims(const char *line, const char *key, unsigned d[3]) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":[", key);
  const char *p = strstr(line, pat);
  return p && sscanf(p + strlen(pat), "%u,%u,%u", &d[0], &d[1], &d[2]) == 3;
}

/* Returns 0 on success (at least one well-formed launch line). */
static int read_stats(const char *path, emu_sums *s) {
  memset(s, 0, sizeof *s);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  int bad = 0;
  while (getline(&line, &cap, f) > 0) {
    if (line[0] != '{') continue;
    unsigned long long ins, uniq, gs, lr, sr, lb, sb;
    if (!json_u64(line, "instructions", &ins) || !json_u64(line, "unique_sectors", &uniq) ||
        !json_u64(line, "global_sectors", &gs) || !json_u64(line, "global_load_requests", &lr) ||
        !json_u64(line, "global_store_requests", &sr) ||
        !json_u64(line, "global_load_bytes", &lb) || !json_u64(line, "global_store_bytes", &sb)) {
      bad = 1;
      continue;
    }
    s->instructions += ins;
    s->unique_sectors += uniq;
    s->global_sectors += gs;
    s->load_req += lr;
    s->store_req += sr;
    s->load_bytes += lb;
    s->store_bytes += sb;
    char name[128];
    if (json_str(line, "kernel", name, sizeof name)) {
      char padded[132];
      snprintf(padded, sizeof padded, ",%s,", name);
      char list[260];
      snprintf(list, sizeof list, ",%s,", s->kernels);
      if (!strstr(list, padded) && strlen(s->kernels) + strlen(name) + 2 < sizeof s->kernels) {
        if (s->kernels[0]) strcat(s->kernels, ",");
        strcat(s->kernels, name);
      }
    }
    unsigned g[3], b[3];
    if (s->launches == 0 && json_dims(line, "grid", g) && json_dims(line, "block", b))
      snprintf(s->geometry, sizeof s->geometry, "grid %ux%ux%u, block %ux%ux%u", g[0], g[1], g[2],
               b[0], b[1], b[2]);
    s->launches++;
  }
  free(line);
  fclose(f);
  if (bad) fprintf(stderr, "gpu_bench: %s: some lines lack the expected counters\n", path);
  return s->launches > 0 ? 0 : -1;
}

static char stats_path[64];

/* A fresh, empty statistics file; the emulator reads $JIT_EMU_STATS at every launch. */
static int stats_reset(void) {
  if (stats_path[0]) unlink(stats_path);
  snprintf(stats_path, sizeof stats_path, "/tmp/sj_gpu_bench_XXXXXX");
  int fd = mkstemp(stats_path);
  if (fd < 0) return -1;
  close(fd);
  return setenv("JIT_EMU_STATS", stats_path, 1);
}

/* ---------------------------------------------------------------- NVRTC */

typedef struct _nvrtcProgram *nvrtcProgram;
typedef int (*nvrtcCreateProgram_t)(nvrtcProgram *, const char *, const char *, int,
                                    const char *const *, const char *const *);
typedef int (*nvrtcCompileProgram_t)(nvrtcProgram, int, const char *const *);
typedef int (*nvrtcGetPTXSize_t)(nvrtcProgram, size_t *);
typedef int (*nvrtcGetPTX_t)(nvrtcProgram, char *);
typedef int (*nvrtcGetProgramLogSize_t)(nvrtcProgram, size_t *);
typedef int (*nvrtcGetProgramLog_t)(nvrtcProgram, char *);
typedef int (*nvrtcDestroyProgram_t)(nvrtcProgram *);
typedef int (*nvrtcVersion_t)(int *, int *);

typedef struct nvrtc_result {
  int ok;
  char why[256];
  char version[32];
  double first_ms, median_ms, min_ms;
  int reps;
  size_t ptx_bytes;
} nvrtc_result;

static void *dlopen_first(const char *const *names, char *tried, size_t cap) {
  tried[0] = '\0';
  for (int i = 0; names[i]; i++) {
    if (!names[i][0]) continue;
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    size_t len = strlen(tried);
    snprintf(tried + len, cap - len, "%s%s", len ? ", " : "", names[i]);
  }
  return NULL;
}

static void bench_nvrtc(const char *lib, const char *cu_path, int reps, nvrtc_result *r) {
  memset(r, 0, sizeof *r);
  char *src = sj_read_file(cu_path, NULL);
  if (!src) {
    snprintf(r->why, sizeof r->why, "cannot read %s", cu_path);
    return;
  }
  const char *names[] = {
      lib, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so",
      NULL};
  char tried[512];
  void *h = dlopen_first(names, tried, sizeof tried);
  if (!h) {
    snprintf(r->why, sizeof r->why, "libnvrtc not found (tried %.200s)", tried);
    free(src);
    return;
  }
  nvrtcCreateProgram_t create = (nvrtcCreateProgram_t)dlsym(h, "nvrtcCreateProgram");
  nvrtcCompileProgram_t compile = (nvrtcCompileProgram_t)dlsym(h, "nvrtcCompileProgram");
  nvrtcGetPTXSize_t ptx_size = (nvrtcGetPTXSize_t)dlsym(h, "nvrtcGetPTXSize");
  nvrtcGetPTX_t get_ptx = (nvrtcGetPTX_t)dlsym(h, "nvrtcGetPTX");
  nvrtcGetProgramLogSize_t log_size = (nvrtcGetProgramLogSize_t)dlsym(h, "nvrtcGetProgramLogSize");
  nvrtcGetProgramLog_t get_log = (nvrtcGetProgramLog_t)dlsym(h, "nvrtcGetProgramLog");
  nvrtcDestroyProgram_t destroy = (nvrtcDestroyProgram_t)dlsym(h, "nvrtcDestroyProgram");
  nvrtcVersion_t version = (nvrtcVersion_t)dlsym(h, "nvrtcVersion");
  if (!create || !compile || !ptx_size || !get_ptx || !destroy) {
    snprintf(r->why, sizeof r->why, "libnvrtc lacks the nvrtc* entry points");
    free(src);
    return;
  }
  int maj = 0, min = 0;
  if (version && version(&maj, &min) == 0)
    snprintf(r->version, sizeof r->version, "%d.%d", maj, min);
  const char *opts[] = {"--gpu-architecture=compute_90"};
  double t[MAX_REPS + 1];
  for (int it = 0; it <= reps; it++) {
    nvrtcProgram prog = NULL;
    double t0 = bench_now_ms();
    int rc = create(&prog, src, "jacobi2d_naive.cu", 0, NULL, NULL);
    if (rc == 0) rc = compile(prog, 1, opts);
    size_t n = 0;
    char *ptx = NULL;
    if (rc == 0) rc = ptx_size(prog, &n);
    if (rc == 0 && (ptx = malloc(n ? n : 1)) != NULL) rc = get_ptx(prog, ptx);
    t[it] = bench_now_ms() - t0;
    if (rc != 0 || !ptx) {
      size_t ln = 0;
      char logbuf[1024] = "";
      if (prog && log_size && get_log && log_size(prog, &ln) == 0 && ln < sizeof logbuf)
        get_log(prog, logbuf);
      snprintf(r->why, sizeof r->why, "NVRTC failed (%d): %.200s", rc, logbuf);
      free(ptx);
      if (prog) destroy(&prog);
      free(src);
      return;
    }
    if (!strstr(ptx, "jacobi2d_step")) {
      snprintf(r->why, sizeof r->why, "NVRTC's PTX lacks jacobi2d_step");
      free(ptx);
      destroy(&prog);
      free(src);
      return;
    }
    r->ptx_bytes = strlen(ptx);
    free(ptx);
    destroy(&prog);
  }
  /* The first compile of the process also loads NVRTC's builtins: reported apart. */
  r->first_ms = t[0];
  r->reps = reps;
  r->median_ms = bench_median(t + 1, reps);
  r->min_ms = t[1];
  r->ok = 1;
  free(src);
  /* libnvrtc stays loaded: unloading it is not needed for a short-lived benchmark. */
}

/* ---------------------------------------------------------------- stenciljit compile */

typedef struct jit_compile_result {
  int T, N, M;
  int ok;
  char why[512];
  double first_ptx_ms;          /* first compile of the process, parse..print */
  double ptx_ms, wall_ms;       /* medians: sum of parse..print stages; jit_kernel_compile */
  double total_ms, load_ms;     /* medians: stage total; module load ("compile" stage) */
  double minus_load_ms, ctx_ms; /* medians: total - module load; jit_context_create */
  double stage_ms[6];           /* medians of parse, model, dependences, schedule, ast, print */
  size_t ptx_bytes;
  int reps;
  char mapping[32]; /* what the library chose: per step, hybrid or split tiles */
} jit_compile_result;

/* The mapping a kernel's explanation names. */
static const char *mapping_of(const char *why) {
  if (why && strstr(why, "hybrid hexagonal/parallelogram time tiling")) return "hybrid tiles";
  if (why && strstr(why, "split time tiling")) return "split tiles";
  return "per step";
}

static void bench_jit_compile(int T, int N, int M, int reps, jit_compile_result *r) {
  memset(r, 0, sizeof *r);
  r->T = T;
  r->N = N;
  r->M = M;
  double ptx[MAX_REPS + 1], wall[MAX_REPS + 1], total[MAX_REPS + 1], load[MAX_REPS + 1],
      minus[MAX_REPS + 1], ctxt[MAX_REPS + 1], stage[6][MAX_REPS + 1];
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(NULL)};
  for (int it = 0; it <= reps; it++) {
    double c0 = bench_now_ms();
    jit_context *ctx = jit_context_create(JIT_DEVICE_EMU);
    ctxt[it] = bench_now_ms() - c0;
    if (!ctx) {
      snprintf(r->why, sizeof r->why, "jit_context_create(JIT_DEVICE_EMU): %s", jit_last_error());
      return;
    }
    jit_kernel *k = NULL;
    double t0 = bench_now_ms();
    int st = jit_kernel_compile(ctx, jacobi2d_src, NULL, args, 4, &k);
    wall[it] = bench_now_ms() - t0;
    if (st != JIT_OK) {
      snprintf(r->why, sizeof r->why, "jit_kernel_compile: status %d: %s", st,
               jit_context_error(ctx));
      jit_context_destroy(ctx);
      return;
    }
    const char *code = jit_kernel_code(k, JIT_CODE_PTX);
    if (!code || !*code) {
      snprintf(r->why, sizeof r->why, "the EMU kernel has no PTX text");
      jit_kernel_release(k);
      jit_context_destroy(ctx);
      return;
    }
    r->ptx_bytes = strlen(code);
    snprintf(r->mapping, sizeof r->mapping, "%s", mapping_of(jit_kernel_schedule(k)));
    jit_stage_times tm;
    jit_kernel_stage_times(k, &tm);
    double s[6] = {tm.parse, tm.model, tm.dependences, tm.schedule, tm.ast, tm.print};
    double sum = 0;
    for (int i = 0; i < 6; i++) {
      stage[i][it] = s[i] / 1e3;
      sum += s[i];
    }
    ptx[it] = sum / 1e3;
    total[it] = tm.total / 1e3;
    load[it] = tm.compile / 1e3;
    minus[it] = (tm.total - tm.compile) / 1e3;
    jit_kernel_release(k);
    jit_context_destroy(ctx);
  }
  r->first_ptx_ms = ptx[0];
  r->reps = reps;
  r->ptx_ms = bench_median(ptx + 1, reps);
  r->wall_ms = bench_median(wall + 1, reps);
  r->total_ms = bench_median(total + 1, reps);
  r->load_ms = bench_median(load + 1, reps);
  r->minus_load_ms = bench_median(minus + 1, reps);
  r->ctx_ms = bench_median(ctxt + 1, reps);
  for (int i = 0; i < 6; i++) r->stage_ms[i] = bench_median(stage[i] + 1, reps);
  r->ok = 1;
}

/* ---------------------------------------------------------------- emulator runs */

typedef struct run_result {
  int ok;
  char why[512];
  emu_sums s;
  int identical; /* result bit-identical to the C loop */
  size_t ndiff;
} run_result;

#define DRV(X)                                                                                     \
  X(cuInit, (unsigned))                                                                            \
  X(cuDeviceGet, (CUdevice *, int))                                                                \
  X(cuDeviceGetName, (char *, int, CUdevice))                                                      \
  X(cuDeviceGetAttribute, (int *, CUdevice_attribute, CUdevice))                                   \
  X(cuDriverGetVersion, (int *))                                                                   \
  X(cuCtxCreate_v2, (CUcontext *, unsigned, CUdevice))                                             \
  X(cuCtxDestroy_v2, (CUcontext))                                                                  \
  X(cuCtxSynchronize, (void))                                                                      \
  X(cuModuleLoadDataEx, (CUmodule *, const void *, unsigned, CUjit_option *, void **))             \
  X(cuModuleUnload, (CUmodule))                                                                    \
  X(cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                                   \
  X(cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,       \
                     unsigned, CUstream, void **, void **))                                        \
  X(cuMemAlloc_v2, (CUdeviceptr *, size_t))                                                        \
  X(cuMemFree_v2, (CUdeviceptr))                                                                   \
  X(cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))                                          \
  X(cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))

#define DRV_FIELD(name, params) sj_cu_pfn_##name name;
static struct {
  void *lib;
  DRV(DRV_FIELD)
} drv;

static char emu_device_desc[256] = "unknown";

static int drv_load(const char *path, char *why, size_t cap) {
  if (drv.lib) return 0;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(why, cap, "dlopen %s: %s", path, dlerror());
    return -1;
  }
#define DRV_SYM(name, params)                                                                      \
  *(void **)&drv.name = dlsym(h, #name);                                                           \
  if (!drv.name) {                                                                                 \
    snprintf(why, cap, "%s: no symbol %s", path, #name);                                           \
    return -1;                                                                                     \
  }
  DRV(DRV_SYM)
#undef DRV_SYM
  drv.lib = h;
  return 0;
}

#define DRV_CHECK(call)                                                                            \
  do {                                                                                             \
    CUresult rc_ = (call);                                                                         \
    if (rc_ != CUDA_SUCCESS) {                                                                     \
      snprintf(r->why, sizeof r->why, "%s failed with %d", #call, (int)rc_);                       \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

/* The naive kernel from nvcc: T launches of jacobi2d_step, 32x8 blocks over N x M. */
static void run_naive(const char *lib, const char *ptx_path, int T, int N, int M, const float *init,
                      const float *ref, run_result *r) {
  memset(r, 0, sizeof *r);
  size_t n = 2 * (size_t)N * M, bytes = n * sizeof(float);
  char *ptx = sj_read_file(ptx_path, NULL);
  float *h = malloc(bytes);
  CUcontext ctx = NULL;
  CUmodule mod = NULL;
  CUdeviceptr d = 0;
  if (!ptx || !h) {
    snprintf(r->why, sizeof r->why, ptx ? "out of memory" : "cannot read %s", ptx_path);
    goto out;
  }
  if (drv_load(lib, r->why, sizeof r->why)) goto out;
  DRV_CHECK(drv.cuInit(0));
  CUdevice dev;
  DRV_CHECK(drv.cuDeviceGet(&dev, 0));
  char name[128] = "";
  int ccmaj = 0, ccmin = 0, dv = 0;
  drv.cuDeviceGetName(name, (int)sizeof name, dev);
  drv.cuDeviceGetAttribute(&ccmaj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  drv.cuDeviceGetAttribute(&ccmin, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  drv.cuDriverGetVersion(&dv);
  snprintf(emu_device_desc, sizeof emu_device_desc,
           "%s, compute capability %d.%d, driver API version %d", name, ccmaj, ccmin, dv);
  DRV_CHECK(drv.cuCtxCreate_v2(&ctx, 0, dev));
  char log[4096] = "", info[4096] = "";
  CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *ov[] = {log, (void *)(uintptr_t)sizeof log, info, (void *)(uintptr_t)sizeof info};
  CUresult lrc = drv.cuModuleLoadDataEx(&mod, ptx, 4, o, ov);
  if (lrc != CUDA_SUCCESS) {
    snprintf(r->why, sizeof r->why, "cuModuleLoadDataEx(%s) failed with %d: %.300s", ptx_path,
             (int)lrc, log);
    mod = NULL;
    goto out;
  }
  CUfunction f;
  DRV_CHECK(drv.cuModuleGetFunction(&f, mod, "jacobi2d_step"));
  DRV_CHECK(drv.cuMemAlloc_v2(&d, bytes));
  DRV_CHECK(drv.cuMemcpyHtoD_v2(d, init, bytes));
  if (stats_reset()) {
    snprintf(r->why, sizeof r->why, "cannot create a statistics file");
    goto out;
  }
  for (int t = 0; t < T; t++) {
    void *params[] = {&t, &N, &M, &d};
    DRV_CHECK(drv.cuLaunchKernel(f, (unsigned)(M + 31) / 32, (unsigned)(N + 7) / 8, 1, 32, 8, 1, 0,
                                 NULL, params, NULL));
  }
  DRV_CHECK(drv.cuCtxSynchronize());
  DRV_CHECK(drv.cuMemcpyDtoH_v2(h, d, bytes));
  if (read_stats(stats_path, &r->s)) {
    snprintf(r->why, sizeof r->why, "no launch statistics in %s", stats_path);
    goto out;
  }
  for (size_t i = 0; i < n; i++) r->ndiff += memcmp(&h[i], &ref[i], sizeof(float)) != 0;
  r->identical = r->ndiff == 0;
  r->ok = 1;
out:
  if (d) drv.cuMemFree_v2(d);
  if (mod) drv.cuModuleUnload(mod);
  if (ctx) drv.cuCtxDestroy_v2(ctx);
  free(ptx);
  free(h);
}

static char jit_schedule_line[256];
static char jit_device_info[256];

/* stenciljit's kernel on the EMU device, through the library's own driver layer. */
static void run_jit(int T, int N, int M, const float *init, const float *ref, run_result *r) {
  memset(r, 0, sizeof *r);
  size_t n = 2 * (size_t)N * M, bytes = n * sizeof(float);
  float *h = malloc(bytes);
  jit_context *ctx = NULL;
  jit_kernel *k = NULL;
  if (!h) {
    snprintf(r->why, sizeof r->why, "out of memory");
    return;
  }
  memcpy(h, init, bytes);
  if (stats_reset()) {
    snprintf(r->why, sizeof r->why, "cannot create a statistics file");
    goto out;
  }
  ctx = jit_context_create(JIT_DEVICE_EMU);
  if (!ctx) {
    snprintf(r->why, sizeof r->why, "jit_context_create(JIT_DEVICE_EMU): %s", jit_last_error());
    goto out;
  }
  snprintf(jit_device_info, sizeof jit_device_info, "%s", jit_context_info(ctx));
  jit_arg args[] = {JIT_INT(T), JIT_INT(N), JIT_INT(M), JIT_PTR(h)};
  int st = jit_kernel_compile(ctx, jacobi2d_src, NULL, args, 4, &k);
  if (st == JIT_OK) {
    const char *sched = jit_kernel_schedule(k);
    if (sched) {
      size_t len = strcspn(sched, "\n");
      snprintf(jit_schedule_line, sizeof jit_schedule_line, "%.*s", (int)(len < 200 ? len : 200),
               sched);
    }
    st = jit_kernel_run(k, args, 4);
  }
  if (st != JIT_OK) {
    snprintf(r->why, sizeof r->why, "status %d: %s", st, jit_context_error(ctx));
    goto out;
  }
  if (read_stats(stats_path, &r->s)) {
    snprintf(r->why, sizeof r->why, "no launch statistics in %s (did the kernel launch?)",
             stats_path);
    goto out;
  }
  for (size_t i = 0; i < n; i++) r->ndiff += memcmp(&h[i], &ref[i], sizeof(float)) != 0;
  r->identical = r->ndiff == 0;
  r->ok = 1;
out:
  if (k) jit_kernel_release(k);
  if (ctx) jit_context_destroy(ctx);
  free(h);
}

/* ---------------------------------------------------------------- report */

/* The 1-minute load average before and after the compile timings (2 cores: others' builds). */
static char load_before[32] = "?", load_after[32] = "?";

static void read_load(char *out, size_t len) {
  char *s = sj_read_file("/proc/loadavg", NULL);
  if (s) snprintf(out, len, "%.*s", (int)strcspn(s, " "), s);
  free(s);
}

static void machine_info(FILE *out) {
  bench_machine_lines(out);
  fprintf(out, "- 1-minute load average: %s before the compile timings, %s after\n", load_before,
          load_after);
  fprintf(out, "- GPU: none attached. All counters below come from the project's PTX emulator "
               "(`libstenciljit_cudaemu.so`), a model, not a GPU measurement.\n");
  fprintf(out, "- emulator device: %s\n", emu_device_desc);
  fprintf(out, "- stenciljit %s, built with %s\n", STENCILJIT_VERSION,
#ifdef __VERSION__
          "cc " __VERSION__
#else
          "an unknown compiler"
#endif
  );
}

static const char *verdict(int measured, int pass) {
  return !measured ? "not measured" : pass ? "**pass**" : "**miss**";
}

static void fmt_ms(char *buf, size_t cap, int ok, double v) {
  if (ok)
    snprintf(buf, cap, "%.2f ms", v);
  else
    snprintf(buf, cap, "n/a");
}

static double per_update(unsigned long long v, int T, int N, int M) {
  double updates = (double)T * (double)(N - 2) * (double)(M - 2);
  return updates > 0 ? (double)v / updates : 0;
}

static double per_request(const emu_sums *s) {
  unsigned long long req = s->load_req + s->store_req;
  return req ? (double)s->global_sectors / (double)req : 0;
}

int main(int argc, char **argv) {
  const char *out_path = NULL, *emu_lib = sj_cuda_emulator_path(), *naive_ptx = SJ_NAIVE_PTX,
             *naive_cu = SJ_NAIVE_CU, *nvrtc_lib = SJ_NVRTC_LIBRARY;
  int reps = 10, T = 2, N = 1024, M = 1024, strict = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--strict") == 0) {
      strict = 1;
      continue;
    }
    if (!v) {
      fprintf(stderr,
              "usage: %s [--out FILE.md] [--emu LIB] [--naive-ptx FILE] [--naive-cu FILE] "
              "[--nvrtc LIB] [--reps K] [-T T] [-N N] [-M M] [--strict]\n",
              argv[0]);
      return 1;
    }
    i++;
    if (strcmp(a, "--out") == 0)
      out_path = v;
    else if (strcmp(a, "--emu") == 0)
      emu_lib = v;
    else if (strcmp(a, "--naive-ptx") == 0)
      naive_ptx = v;
    else if (strcmp(a, "--naive-cu") == 0)
      naive_cu = v;
    else if (strcmp(a, "--nvrtc") == 0)
      nvrtc_lib = v;
    else if (strcmp(a, "--reps") == 0)
      reps = atoi(v);
    else if (strcmp(a, "-T") == 0)
      T = atoi(v);
    else if (strcmp(a, "-N") == 0)
      N = atoi(v);
    else if (strcmp(a, "-M") == 0)
      M = atoi(v);
    else {
      fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
      return 1;
    }
  }
  if (reps < 1 || reps > MAX_REPS || T < 1 || N < 3 || M < 3 || (size_t)N * M > (1u << 28)) {
    fprintf(stderr, "%s: need 1 <= reps <= %d, T >= 1, N, M >= 3\n", argv[0], MAX_REPS);
    return 1;
  }

  /* 1. cold compile latency: NVRTC and stenciljit, side by side. */
  nvrtc_result nv;
  bench_nvrtc(nvrtc_lib, naive_cu, reps, &nv);
  if (nv.ok)
    printf("NVRTC %s: naive jacobi2d .cu -> PTX: median %.2f ms over %d, first %.2f ms\n",
           nv.version, nv.median_ms, nv.reps, nv.first_ms);
  else
    printf("NVRTC: not measured: %s\n", nv.why);

  /* The large shape twice: the mapping the library chooses (the tile model may time-tile it,
   * a different compile) and the per-step mapping (JIT_TILING=none) the target is about. */
  const int shapes[NSHAPES][3] = {{T, N, M}, {100, 4096, 4096}, {100, 4096, 4096}};
  const char *const tilings[NSHAPES] = {NULL, NULL, "none"};
  jit_compile_result jc[NSHAPES];
  read_load(load_before, sizeof load_before);
  for (int s = 0; s < NSHAPES; s++) {
    if (tilings[s])
      setenv("JIT_TILING", tilings[s], 1);
    else
      unsetenv("JIT_TILING");
    bench_jit_compile(shapes[s][0], shapes[s][1], shapes[s][2], reps, &jc[s]);
    unsetenv("JIT_TILING");
    if (jc[s].ok)
      printf("stenciljit T=%d N=%d M=%d (%s): source -> PTX text median %.2f ms (stage total "
             "%.2f, compile stage %.2f, jit_kernel_compile %.2f ms), first %.2f ms\n",
             jc[s].T, jc[s].N, jc[s].M, jc[s].mapping, jc[s].ptx_ms, jc[s].total_ms, jc[s].load_ms,
             jc[s].wall_ms, jc[s].first_ptx_ms);
    else
      printf("stenciljit T=%d N=%d M=%d: not measured: %s\n", shapes[s][0], shapes[s][1],
             shapes[s][2], jc[s].why);
  }

  read_load(load_after, sizeof load_after);

  /* 2 and 3: both kernels over the same data in the emulator; both checked against C. */
  size_t n = 2 * (size_t)N * M;
  float *init = malloc(n * sizeof(float)), *ref = malloc(n * sizeof(float));
  if (!init || !ref) {
    fprintf(stderr, "gpu_bench: out of memory\n");
    return 1;
  }
  bench_fill(init, n);
  memcpy(ref, init, n * sizeof(float));
  jacobi2d_ref(T, N, M, ref);

  run_result naive, jit;
  run_naive(emu_lib, naive_ptx, T, N, M, init, ref, &naive);
  if (naive.ok)
    printf("naive (nvcc -O3) in the emulator: %d launches, %.2f instr/update, %.3f unique "
           "bytes/update (emulator model)%s\n",
           naive.s.launches, per_update(naive.s.instructions, T, N, M),
           per_update(naive.s.unique_sectors * 32, T, N, M),
           naive.identical ? "" : "; RESULT DIFFERS FROM C");
  else
    printf("naive kernel: not measured: %s\n", naive.why);
  run_jit(T, N, M, init, ref, &jit);
  if (jit.ok)
    printf("stenciljit in the emulator: %d launches, %.2f instr/update, %.3f unique "
           "bytes/update (emulator model)%s\n",
           jit.s.launches, per_update(jit.s.instructions, T, N, M),
           per_update(jit.s.unique_sectors * 32, T, N, M),
           jit.identical ? "" : "; RESULT DIFFERS FROM C");
  else
    printf("stenciljit kernel run: not measured: %s\n", jit.why);
  if (stats_path[0]) unlink(stats_path);

  /* Verdicts. */
  int all_pass = 1;
  /* 1b twice: the per-step kernel (the measure) and whatever the library chose */
  double worst_ptx = 0, worst_step = 0;
  int ptx_ok = 1;
  for (int s = 0; s < NSHAPES; s++) {
    ptx_ok &= jc[s].ok;
    if (jc[s].ok && jc[s].ptx_ms > worst_ptx) worst_ptx = jc[s].ptx_ms;
    if (jc[s].ok && !strcmp(jc[s].mapping, "per step") && jc[s].ptx_ms > worst_step)
      worst_step = jc[s].ptx_ms;
  }
  int pass1a = ptx_ok && worst_ptx < TARGET_PTX_MS;
  double ratio = ptx_ok && nv.ok && nv.median_ms > 0 ? worst_ptx / nv.median_ms : -1;
  double ratio_step = ptx_ok && nv.ok && nv.median_ms > 0 ? worst_step / nv.median_ms : -1;
  int pass1b = ratio >= 0 && ratio <= TARGET_NVRTC_RATIO;
  int pass1b_step = ratio_step >= 0 && ratio_step <= TARGET_NVRTC_RATIO;
  double jit_ub = jit.ok ? per_update(jit.s.unique_sectors * 32, T, N, M) : -1;
  double naive_ub = naive.ok ? per_update(naive.s.unique_sectors * 32, T, N, M) : -1;
  int pass2 = jit.ok && jit.identical && jit_ub <= TARGET_UNIQUE_BYTES;
  double jit_ipu = jit.ok ? per_update(jit.s.instructions, T, N, M) : -1;
  double naive_ipu = naive.ok ? per_update(naive.s.instructions, T, N, M) : -1;
  int pass3 = jit.ok && naive.ok && jit.identical && jit_ipu <= naive_ipu;
  all_pass = pass1a && pass1b && pass1b_step && pass2 && pass3;
  if (jit.ok && !jit.identical)
    note("stenciljit's result on the emulator differs from the C loop in %zu of %zu elements: "
         "its counters are not a valid measurement.",
         jit.ndiff, n);
  if (naive.ok && !naive.identical)
    note("the naive kernel's result differs from the C loop in %zu of %zu elements.", naive.ndiff,
         n);

  /* Report. */
  FILE *out = out_path ? fopen(out_path, "w") : stdout;
  if (!out) {
    fprintf(stderr, "gpu_bench: cannot write %s: %s\n", out_path, strerror(errno));
    return 1;
  }
  fprintf(out, "# GPU path benchmarks (issue 4)\n\n");
  fprintf(out, "Written by `bench/gpu/gpu_bench` (`cmake --build BUILD --target bench_gpu_run`). "
               "No GPU is attached to this machine: no GPU time is measured or claimed. "
               "Compile latencies are wall-clock times on this CPU; every instruction, sector "
               "and byte count is the **emulator model** (the project's PTX emulator running "
               "the PTX), not a hardware measurement.\n\n");
  machine_info(out);
  fprintf(out, "- NVRTC: %s\n", nv.ok ? nv.version : "not found");
  fprintf(out, "- kernel: the blueprint's fp32 jacobi-2d (`A[2][N][M]`, `A[(t+1)%%2]` double "
               "buffer); baseline `bench/baselines/jacobi2d_naive.cu` (one thread per point, one "
               "launch per step), compiled by `nvcc -O3 -arch=sm_80 -ptx --fmad=false`\n");
  fprintf(out,
          "- emulator runs: T=%d, N=%d, M=%d (%.0f updates); naive kernel launched %d "
          "times with 32x8 blocks\n",
          T, N, M, (double)T * (N - 2) * (M - 2), T);
  if (jit_device_info[0]) fprintf(out, "- stenciljit device: %s\n", jit_device_info);
  if (jit_schedule_line[0]) fprintf(out, "- stenciljit schedule: %s\n", jit_schedule_line);
  fprintf(out, "\n## Targets\n\n");
  fprintf(out, "| # | measure | stenciljit | baseline | target | result |\n");
  fprintf(out, "|---|---|---|---|---|---|\n");
  char a[64], b[64];
  for (int s = 0; s < NSHAPES; s++) {
    fmt_ms(a, sizeof a, jc[s].ok, jc[s].ptx_ms);
    fmt_ms(b, sizeof b, nv.ok, nv.median_ms);
    fprintf(out,
            "| 1a | cold JIT, source to PTX text (sum of parse..print stages, median of %d, fresh "
            "context each), T=%d N=%d M=%d, %s (%s) | %s | NVRTC: %s | < %.0f ms | %s |\n",
            reps, shapes[s][0], shapes[s][1], shapes[s][2], jc[s].ok ? jc[s].mapping : "?",
            tilings[s] ? "JIT_TILING=none" : "the library's choice", a, b, TARGET_PTX_MS,
            verdict(jc[s].ok, jc[s].ok && jc[s].ptx_ms < TARGET_PTX_MS));
  }
  const char *what[] = {"the per-step kernel", "the library's choice, time-tiled or not"};
  double ratios[] = {ratio_step, ratio};
  int passes[] = {pass1b_step, pass1b};
  for (int i = 0; i < 2; i++) {
    if (ratios[i] >= 0)
      snprintf(a, sizeof a, "%.3f", ratios[i]);
    else
      snprintf(a, sizeof a, "n/a");
    fprintf(out,
            "| 1b | cold JIT to PTX text / NVRTC compile of the naive .cu (worst shape, %s) | %s "
            "| NVRTC = 1 | <= %.1f | %s |\n",
            what[i], a, TARGET_NVRTC_RATIO, verdict(ratios[i] >= 0, passes[i]));
  }
  if (jit.ok)
    snprintf(a, sizeof a, "%.3f", jit_ub);
  else
    snprintf(a, sizeof a, "n/a");
  if (naive.ok)
    snprintf(b, sizeof b, "%.3f", naive_ub);
  else
    snprintf(b, sizeof b, "n/a");
  fprintf(out,
          "| 2 | unique DRAM bytes per update, fp32 %dx%d, T=%d (emulator model: unique 32-byte "
          "sectors x 32 per launch, summed) | %s | naive: %s | <= %.1f | %s |\n",
          N, M, T, a, b, TARGET_UNIQUE_BYTES, verdict(jit.ok, pass2));
  if (jit.ok)
    snprintf(a, sizeof a, "%.2f", jit_ipu);
  else
    snprintf(a, sizeof a, "n/a");
  if (naive.ok)
    snprintf(b, sizeof b, "%.2f", naive_ipu);
  else
    snprintf(b, sizeof b, "n/a");
  fprintf(out,
          "| 3 | dynamic PTX instructions per update (emulator model, summed over threads) | %s "
          "| naive nvcc -O3: %s | <= naive | %s |\n",
          a, b, verdict(jit.ok && naive.ok, pass3));

  fprintf(out, "\n## Details\n\n");
  fprintf(out,
          "Cold compile, stenciljit on the EMU device (medians of %d; fresh `jit_context` "
          "each time; \"first\" is the first compile of that shape, outside the median, and "
          "for the first row the first of the process). Stage columns in ms. The print stage "
          "prints the PTX and the host launch loop's C; the compile stage is the module load "
          "(`cuModuleLoadDataEx` into the emulator) plus TinyCC compiling the host loop, so "
          "\"PTX text\" slightly overstates the time to the PTX alone:\n\n",
          reps);
  fprintf(out, "| shape | mapping | PTX text (parse..print) | first | parse | model | "
               "dependences | schedule | ast | print | compile stage | stage total | total - "
               "compile | jit_kernel_compile wall | context create | PTX bytes |\n");
  fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int s = 0; s < NSHAPES; s++) {
    if (!jc[s].ok) {
      fprintf(out, "| T=%d N=%d M=%d | not measured: %s |||||||||||||||\n", shapes[s][0],
              shapes[s][1], shapes[s][2], jc[s].why);
      continue;
    }
    fprintf(out, "| T=%d N=%d M=%d | %s%s | %.2f ms | %.2f ms |", jc[s].T, jc[s].N, jc[s].M,
            jc[s].mapping, tilings[s] ? " (JIT_TILING=none)" : "", jc[s].ptx_ms,
            jc[s].first_ptx_ms);
    for (int i = 0; i < 6; i++) fprintf(out, " %.2f |", jc[s].stage_ms[i]);
    fprintf(out, " %.2f | %.2f | %.2f | %.2f ms | %.2f ms | %zu |\n", jc[s].load_ms, jc[s].total_ms,
            jc[s].minus_load_ms, jc[s].wall_ms, jc[s].ctx_ms, jc[s].ptx_bytes);
  }
  if (nv.ok)
    fprintf(out,
            "\nNVRTC %s, `--gpu-architecture=compute_90`, create + compile + get PTX of "
            "`jacobi2d_naive.cu`, fresh program each time: median %.2f ms of %d, min %.2f "
            "ms, first in process %.2f ms (loads NVRTC's builtins), %zu bytes of PTX.\n",
            nv.version, nv.median_ms, nv.reps, nv.min_ms, nv.first_ms, nv.ptx_bytes);
  else
    fprintf(out, "\nNVRTC not measured: %s.\n", nv.why);

  fprintf(out, "\nEmulator counters (emulator model), T=%d over %dx%d:\n\n", T, N, M);
  fprintf(out, "| kernel | launches | first launch | instructions | instr/update | global "
               "sectors | requests (ld+st) | sectors/request | unique sectors | unique "
               "bytes/update | global bytes/update (ld+st) | result vs C loop |\n");
  fprintf(out, "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  const run_result *rs[2] = {&jit, &naive};
  const char *labels[2] = {"stenciljit", "naive (nvcc -O3)"};
  for (int i = 0; i < 2; i++) {
    const run_result *r = rs[i];
    if (!r->ok) {
      fprintf(out, "| %s | not measured: %s |||||||||||\n", labels[i], r->why);
      continue;
    }
    fprintf(out,
            "| %s (`%s`) | %d | %s | %llu | %.2f | %llu | %llu+%llu | %.2f | %llu | %.3f | %.3f | "
            "%s |\n",
            labels[i], r->s.kernels, r->s.launches, r->s.geometry, r->s.instructions,
            per_update(r->s.instructions, T, N, M), r->s.global_sectors, r->s.load_req,
            r->s.store_req, per_request(&r->s), r->s.unique_sectors,
            per_update(r->s.unique_sectors * 32, T, N, M),
            per_update(r->s.load_bytes + r->s.store_bytes, T, N, M),
            r->identical ? "bit-identical" : "DIFFERS");
  }
  fprintf(out, "\nsectors/request = global sectors / (load + store requests), the coalescing "
               "measure: 4 is one fully used 128-byte line per warp access of 32 floats, more "
               "means scattered or misaligned accesses. Unique sectors are counted per launch, "
               "so one launch per time step re-reads the grid every step. Per update = divided "
               "by T*(N-2)*(M-2).\n");
  for (int i = 0; i < nnotes; i++) fprintf(out, "\nNote: %s\n", notes[i]);
  if (out != stdout) fclose(out);
  if (out_path) printf("results written to %s\n", out_path);
  printf("targets: %s\n", all_pass ? "all met" : "not all met (see the table)");
  free(init);
  free(ref);
  return all_pass || !strict ? 0 : 3;
}
