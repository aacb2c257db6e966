/* The CUDA driver API through dlopen: the real libcuda.so.1 or the project's emulator,
 * which exports the same symbols. cuda.h is deliberately not included so the library builds
 * on machines without the toolkit: the entry points, types and constants come from
 * base/cuda_abi.h, which has cuda.h's ABI and values. */
#include "host/cuda.h"
#include "host/locate.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cuda_abi.h"
#include "stenciljit.h"

#define SJ_CUDA_LOG_SIZE 16384

/* The entry points used, by the symbol names cuda.h's macros resolve to: X(symbol, fallback,
 * optional). fallback: what older drivers export instead; optional: the layer works without. */
#define CU_USED(X)                                                                                 \
  X(cuInit, NULL, 0)                                                                               \
  X(cuDriverGetVersion, NULL, 0)                                                                   \
  X(cuDeviceGetCount, NULL, 0)                                                                     \
  X(cuDeviceGet, NULL, 0)                                                                          \
  X(cuDeviceGetAttribute, NULL, 0)                                                                 \
  X(cuDeviceGetName, NULL, 0)                                                                      \
  X(cuDeviceTotalMem_v2, NULL, 0)                                                                  \
  X(cuDevicePrimaryCtxRetain, NULL, 0)                                                             \
  X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", 0)                                  \
  X(cuCtxSetCurrent, NULL, 0)                                                                      \
  X(cuCtxSynchronize, NULL, 0)                                                                     \
  X(cuModuleLoadDataEx, NULL, 0)                                                                   \
  /* Only for binary images of linked modules (sj_cuda_link). */                                   \
  X(cuLinkCreate_v2, NULL, 1)                                                                      \
  X(cuLinkAddData_v2, NULL, 1)                                                                     \
  X(cuLinkComplete, NULL, 1)                                                                       \
  X(cuLinkDestroy, NULL, 1)                                                                        \
  X(cuModuleUnload, NULL, 0)                                                                       \
  X(cuModuleGetFunction, NULL, 0)                                                                  \
  /* Only sharpens the launch check (per-kernel thread and shared limits). */                      \
  X(cuFuncGetAttribute, NULL, 1)                                                                   \
  /* Only for kernels with more than 48 KB of shared memory (sj_cuda_allow_shared). */             \
  X(cuFuncSetAttribute, NULL, 1)                                                                   \
  X(cuMemAlloc_v2, NULL, 0)                                                                        \
  X(cuMemFree_v2, NULL, 0)                                                                         \
  X(cuMemcpyHtoD_v2, NULL, 0)                                                                      \
  X(cuMemcpyDtoH_v2, NULL, 0)                                                                      \
  X(cuLaunchKernel, NULL, 0)                                                                       \
  X(cuEventCreate, NULL, 0)                                                                        \
  X(cuEventRecord, NULL, 0)                                                                        \
  X(cuEventSynchronize, NULL, 0)                                                                   \
  X(cuEventElapsedTime_v2, "cuEventElapsedTime", 0)                                                \
  X(cuEventDestroy_v2, NULL, 0)                                                                    \
  X(cuGetErrorName, NULL, 0)                                                                       \
  X(cuGetErrorString, NULL, 0)                                                                     \
  X(emuGetLastErrorMessage, NULL, 1) /* only in the emulator */

typedef struct cu_api {
#define CU_FIELD(symbol, fallback, optional) sj_cu_pfn_##symbol symbol;
  CU_USED(CU_FIELD)
#undef CU_FIELD
} cu_api;

typedef struct cu_sym {
  const char *name, *fallback;
  size_t offset;
  int optional;
} cu_sym;

static const cu_sym cu_syms[] = {
#define CU_SYM(symbol, fallback, optional) {#symbol, fallback, offsetof(cu_api, symbol), optional},
    CU_USED(CU_SYM)
#undef CU_SYM
};

struct sj_cuda {
  void *lib;
  cu_api cu;
  CUdevice dev;
  CUcontext ctx; /* the primary context, retained */
  sj_cuda_props props;
  int lost; /* a sticky error came back: the context is unusable */
  /* Serializes module loads: they share the log buffers below. The emulator's last error
   * message is kept per thread, so launches need no lock. */
  pthread_mutex_t mu;
  char errlog[SJ_CUDA_LOG_SIZE], infolog[SJ_CUDA_LOG_SIZE];
};

/* --- errors --- */

/* The emulator's message of the last failure, copied now: the next driver call (even
 * cuGetErrorName) may overwrite it. */
static void emu_message(sj_cuda *c, char *buf, size_t len) {
  const char *m = c->cu.emuGetLastErrorMessage ? c->cu.emuGetLastErrorMessage() : NULL;
  snprintf(buf, len, "%s", m ? m : "");
}

/* Results after which CUDA refuses every call on the context until it is destroyed. */
static int sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return 1;
  default:
    return 0;
  }
}

/* "call failed: CUDA_ERROR_X (text)" followed by detail when non-empty. */
static int cu_fail(sj_cuda *c, sj_error *err, const char *call, CUresult r, const char *detail) {
  const char *name = NULL, *text = NULL;
  if (sticky(r)) __atomic_store_n(&c->lost, 1, __ATOMIC_RELAXED);
  if (c->cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = NULL;
  if (c->cu.cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) text = NULL;
  const char *sep = detail && *detail ? ": " : "", *d = detail ? detail : "";
  if (name)
    return sj_error_set(err, JIT_ERR_DEVICE, "%s failed: %s (%s)%s%s", call, name,
                        text ? text : "no description", sep, d);
  /* The toolkit's stub libcuda knows no names; say what it is, it is a common mistake. */
  const char *stub = r == CUDA_ERROR_STUB_LIBRARY
                         ? " (CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda, not a driver)"
                         : "";
  return sj_error_set(err, JIT_ERR_DEVICE, "%s failed: CUresult %d%s%s%s", call, (int)r, stub, sep,
                      d);
}

/* cu_fail with the emulator's own message (what failed, where) as the detail. */
static int cu_fail_emu(sj_cuda *c, sj_error *err, const char *call, CUresult r) {
  char detail[sizeof err->msg];
  emu_message(c, detail, sizeof detail);
  return cu_fail(c, err, call, r, detail);
}

int sj_cuda_lost(const sj_cuda *c) {
  return __atomic_load_n(&c->lost, __ATOMIC_RELAXED);
}

/* Makes the context current on this thread: callers may come from any thread, and the
 * call costs next to nothing when it is current already. */
static int make_current(sj_cuda *c, sj_error *err) {
  CUresult r = c->cu.cuCtxSetCurrent(c->ctx);
  return r == CUDA_SUCCESS ? 0 : cu_fail_emu(c, err, "cuCtxSetCurrent", r);
}

/* --- open --- */

static int resolve(sj_cuda *c, const char *path, sj_error *err) {
  for (size_t i = 0; i < sizeof cu_syms / sizeof *cu_syms; i++) {
    const cu_sym *s = &cu_syms[i];
    void *p = dlsym(c->lib, s->name);
    if (!p && s->fallback) p = dlsym(c->lib, s->fallback);
    if (!p && !s->optional)
      return sj_error_set(err, JIT_ERR_DEVICE, "CUDA driver library %s has no symbol %s", path,
                          s->name);
    /* POSIX guarantees data and function pointers convert; memcpy keeps compilers quiet. */
    memcpy((char *)&c->cu + s->offset, &p, sizeof p);
  }
  return 0;
}

static int read_attrs(sj_cuda *c, sj_error *err) {
  sj_cuda_props *p = &c->props;
#define ATTR(field, name)                                                                          \
  { field, CU_DEVICE_ATTRIBUTE_##name, #name, 0 }
/* for the tile model only: 0 when the driver does not tell (newer ones drop the clocks) */
#define MODEL_ATTR(field, name)                                                                    \
  { field, CU_DEVICE_ATTRIBUTE_##name, #name, 1 }
  const struct {
    int *out;
    CUdevice_attribute which;
    const char *name;
    int optional;
  } a[] = {
      ATTR(&p->cc_major, COMPUTE_CAPABILITY_MAJOR),
      ATTR(&p->cc_minor, COMPUTE_CAPABILITY_MINOR),
      ATTR(&p->multiprocessors, MULTIPROCESSOR_COUNT),
      ATTR(&p->max_threads_per_block, MAX_THREADS_PER_BLOCK),
      ATTR(&p->max_block[0], MAX_BLOCK_DIM_X),
      ATTR(&p->max_block[1], MAX_BLOCK_DIM_Y),
      ATTR(&p->max_block[2], MAX_BLOCK_DIM_Z),
      ATTR(&p->max_grid[0], MAX_GRID_DIM_X),
      ATTR(&p->max_grid[1], MAX_GRID_DIM_Y),
      ATTR(&p->max_grid[2], MAX_GRID_DIM_Z),
      ATTR(&p->shared_per_block, MAX_SHARED_MEMORY_PER_BLOCK),
      ATTR(&p->shared_per_block_optin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
      ATTR(&p->regs_per_block, MAX_REGISTERS_PER_BLOCK),
      ATTR(&p->warp_size, WARP_SIZE),
      MODEL_ATTR(&p->threads_per_sm, MAX_THREADS_PER_MULTIPROCESSOR),
      MODEL_ATTR(&p->blocks_per_sm, MAX_BLOCKS_PER_MULTIPROCESSOR),
      MODEL_ATTR(&p->shared_per_sm, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
      MODEL_ATTR(&p->shared_reserved, RESERVED_SHARED_MEMORY_PER_BLOCK),
      MODEL_ATTR(&p->l2_bytes, L2_CACHE_SIZE),
      MODEL_ATTR(&p->clock_khz, CLOCK_RATE),
      MODEL_ATTR(&p->mem_clock_khz, MEMORY_CLOCK_RATE),
      MODEL_ATTR(&p->bus_bits, GLOBAL_MEMORY_BUS_WIDTH),
  };
#undef ATTR
#undef MODEL_ATTR
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) {
    CUresult r = c->cu.cuDeviceGetAttribute(a[i].out, a[i].which, c->dev);
    if (r == CUDA_SUCCESS) continue;
    *a[i].out = 0;
    if (a[i].optional) continue;
    char call[128];
    snprintf(call, sizeof call, "cuDeviceGetAttribute(%s)", a[i].name);
    return cu_fail_emu(c, err, call, r);
  }
  return 0;
}

/* The newest PTX ISA the driver accepts, as major*10+minor (ANCHORS.md); -1 if too old. */
static int driver_ptx_isa(int driver_version) {
  int major = driver_version / 1000, minor = driver_version % 1000 / 10;
  if (major == 11) return 70 + minor;
  if (major == 12) return minor <= 5 ? 80 + minor : 80 + minor - 1;
  if (major == 13) return 90 + minor;
  if (major > 13) return 90; /* a newer driver still accepts 9.0; more is a guess */
  return -1;
}

/* The oldest PTX ISA that knows the target; 0 when we have no table entry (a device
 * newer than this file: the driver knows it, so no check). */
static int target_min_isa(int cc) {
  static const int table[][2] = {{70, 60},  {72, 61},  {75, 63},  {80, 70},  {86, 71},
                                 {87, 74},  {89, 78},  {90, 78},  {100, 86}, {101, 86},
                                 {103, 88}, {110, 90}, {120, 87}, {121, 88}};
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (table[i][0] == cc) return table[i][1];
  return 0;
}

static int choose_ptx(sj_cuda *c, sj_error *err) {
  sj_cuda_props *p = &c->props;
  int cc = p->cc_major * 10 + p->cc_minor, dv = p->driver_version;
  int isa = driver_ptx_isa(dv), need = target_min_isa(cc);
  if (isa < 0)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "CUDA driver %d.%d is too old: CUDA 11 or newer needed", dv / 1000,
                        dv % 1000 / 10);
  if (isa < need)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "CUDA driver %d.%d accepts PTX ISA up to %d.%d but sm_%d needs %d.%d",
                        dv / 1000, dv % 1000 / 10, isa / 10, isa % 10, cc, need / 10, need % 10);
  snprintf(p->ptx_version, sizeof p->ptx_version, "%d.%d", isa / 10, isa % 10);
  snprintf(p->ptx_target, sizeof p->ptx_target, "sm_%d", cc);
  return 0;
}

/* Driver calls of open, in order; stops at the first failure. */
static int init_device(sj_cuda *c, sj_error *err) {
  CUresult r;
  int n = 0;
  if ((r = c->cu.cuInit(0)) != CUDA_SUCCESS) return cu_fail_emu(c, err, "cuInit", r);
  if ((r = c->cu.cuDriverGetVersion(&c->props.driver_version)) != CUDA_SUCCESS)
    return cu_fail_emu(c, err, "cuDriverGetVersion", r);
  if ((r = c->cu.cuDeviceGetCount(&n)) != CUDA_SUCCESS)
    return cu_fail_emu(c, err, "cuDeviceGetCount", r);
  if (n < 1) return sj_error_set(err, JIT_ERR_DEVICE, "no CUDA device: the driver reports 0");
  if ((r = c->cu.cuDeviceGet(&c->dev, 0)) != CUDA_SUCCESS)
    return cu_fail_emu(c, err, "cuDeviceGet", r);
  r = c->cu.cuDeviceGetName(c->props.name, sizeof c->props.name - 1, c->dev);
  if (r != CUDA_SUCCESS) return cu_fail_emu(c, err, "cuDeviceGetName", r);
  if ((r = c->cu.cuDeviceTotalMem_v2(&c->props.total_mem, c->dev)) != CUDA_SUCCESS)
    return cu_fail_emu(c, err, "cuDeviceTotalMem_v2", r);
  if (read_attrs(c, err) || choose_ptx(c, err)) return err->status;
  if ((r = c->cu.cuDevicePrimaryCtxRetain(&c->ctx, c->dev)) != CUDA_SUCCESS) {
    c->ctx = NULL;
    return cu_fail_emu(c, err, "cuDevicePrimaryCtxRetain", r);
  }
  return make_current(c, err);
}

int sj_cuda_open(const char *library, sj_cuda **out, sj_error *err) {
  const char *env = getenv("JIT_CUDA_LIBRARY");
  const char *path = library ? library : env && *env ? env : "libcuda.so.1";
  *out = NULL;
  sj_cuda *c = calloc(1, sizeof *c);
  if (!c) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  pthread_mutex_init(&c->mu, NULL);
  c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!c->lib) {
    const char *why = dlerror();
    sj_error_set(err, JIT_ERR_DEVICE, "cannot load CUDA driver library %s: %s", path,
                 why ? why : "unknown dlopen error");
    sj_cuda_close(c);
    return JIT_ERR_DEVICE;
  }
  if (resolve(c, path, err) || init_device(c, err)) {
    int status = err->status;
    sj_cuda_close(c);
    return status;
  }
  *out = c;
  return JIT_OK;
}

void sj_cuda_close(sj_cuda *c) {
  if (!c) return;
  if (c->ctx) c->cu.cuDevicePrimaryCtxRelease_v2(c->dev);
  if (c->lib) dlclose(c->lib);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

const sj_cuda_props *sj_cuda_get_props(const sj_cuda *c) {
  return &c->props;
}

/* The environment's choice, else the emulator beside this code (the library's own directory,
 * or ../lib from a program in bin/: an install or bundle, wherever it was moved), else the
 * build tree's while it exists (tests), else the installed one. Never NULL: that would make
 * sj_cuda_open load the real driver. */
static char emu_beside[4096];
static void find_emu_beside(void) {
  static const char *const rel[] = {"libstenciljit_cudaemu.so", "../lib/libstenciljit_cudaemu.so",
                                    NULL};
  sj_locate_beside(rel, emu_beside, sizeof emu_beside);
}

const char *sj_cuda_emulator_path(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  const char *env = getenv("JIT_EMU_LIBRARY");
  if (env && *env) return env;
  pthread_once(&once, find_emu_beside);
  if (emu_beside[0]) return emu_beside;
#ifdef SJ_EMU_LIBRARY
  if (access(SJ_EMU_LIBRARY, R_OK) == 0) return SJ_EMU_LIBRARY;
#endif
#ifdef SJ_EMU_INSTALLED
  return SJ_EMU_INSTALLED;
#else
  return "libstenciljit_cudaemu.so";
#endif
}

/* --- modules --- */

/* Copies s into buf without its trailing whitespace (logs end with newlines). */
static void trimmed(char *buf, size_t len, const char *s) {
  size_t n = 0;
  while (n < len - 1 && s[n]) n++;
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r')) n--;
  memcpy(buf, s, n);
  buf[n] = 0;
}

/* The error and info log options over the layer's buffers (emptied), for a load or a link. */
static void log_options(sj_cuda *c, CUjit_option opt[4], void *val[4]) {
  opt[0] = CU_JIT_ERROR_LOG_BUFFER, val[0] = c->errlog;
  opt[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, val[1] = (void *)(uintptr_t)sizeof c->errlog;
  opt[2] = CU_JIT_INFO_LOG_BUFFER, val[2] = c->infolog;
  opt[3] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, val[3] = (void *)(uintptr_t)sizeof c->infolog;
  c->errlog[0] = c->infolog[0] = 0;
}

/* What the logs say about a failure, else the emulator's message. */
static void failure_log(sj_cuda *c, char *log, size_t len) {
  /* The sizes come back as the bytes written; never trust the text to be terminated. */
  c->errlog[sizeof c->errlog - 1] = c->infolog[sizeof c->infolog - 1] = 0;
  trimmed(log, len, c->errlog[0] ? c->errlog : c->infolog);
  if (!log[0]) emu_message(c, log, len);
}

static CUresult load_locked(sj_cuda *c, const void *image, CUmodule *m, char *log, size_t len) {
  CUjit_option opt[4];
  void *val[4];
  log_options(c, opt, val);
  CUresult r = c->cu.cuModuleLoadDataEx(m, image, 4, opt, val);
  if (r != CUDA_SUCCESS) failure_log(c, log, len);
  return r;
}

int sj_cuda_load(sj_cuda *c, const void *ptx, sj_cuda_module **out, sj_error *err) {
  CUmodule m = NULL;
  char log[sizeof err->msg];
  *out = NULL;
  if (make_current(c, err)) return err->status;
  pthread_mutex_lock(&c->mu);
  CUresult r = load_locked(c, ptx, &m, log, sizeof log);
  if (r != CUDA_SUCCESS) cu_fail(c, err, "cuModuleLoadDataEx", r, log);
  pthread_mutex_unlock(&c->mu);
  if (r != CUDA_SUCCESS) return err->status;
  *out = (sj_cuda_module *)m; /* the handle itself: nothing else to keep per module */
  return JIT_OK;
}

/* Create, add the PTX, complete; the call that failed, or NULL. */
static const char *link_locked(sj_cuda *c, CUlinkState st, const char *ptx, void **out, size_t *n,
                               CUresult *r) {
  if ((*r = c->cu.cuLinkAddData_v2(st, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "stenciljit",
                                   0, NULL, NULL)) != CUDA_SUCCESS)
    return "cuLinkAddData_v2";
  if ((*r = c->cu.cuLinkComplete(st, out, n)) != CUDA_SUCCESS) return "cuLinkComplete";
  return NULL;
}

int sj_cuda_can_link(const sj_cuda *c) {
  return c->cu.cuLinkCreate_v2 && c->cu.cuLinkAddData_v2 && c->cu.cuLinkComplete &&
         c->cu.cuLinkDestroy;
}

int sj_cuda_link(sj_cuda *c, const char *ptx, void **image, size_t *size, sj_error *err) {
  *image = NULL;
  *size = 0;
  if (!c->cu.cuLinkCreate_v2 || !c->cu.cuLinkAddData_v2 || !c->cu.cuLinkComplete ||
      !c->cu.cuLinkDestroy)
    return sj_error_set(err, JIT_ERR_DEVICE, "the CUDA driver library cannot link (no cuLink*)");
  if (make_current(c, err)) return err->status;
  pthread_mutex_lock(&c->mu);
  CUjit_option opt[4];
  void *val[4], *out = NULL;
  size_t n = 0;
  CUlinkState st = NULL;
  log_options(c, opt, val);
  CUresult r = c->cu.cuLinkCreate_v2(4, opt, val, &st);
  const char *failed = r ? "cuLinkCreate_v2" : link_locked(c, st, ptx, &out, &n, &r);
  if (!failed && !(*image = malloc(n))) {
    sj_error_set(err, JIT_ERR_NOMEM, "out of memory for a linked image of %zu bytes", n);
    failed = "";
  } else if (!failed) {
    memcpy(*image, out, n);
    *size = n;
  } else {
    char log[sizeof err->msg];
    failure_log(c, log, sizeof log);
    cu_fail(c, err, failed, r, log);
  }
  if (st) c->cu.cuLinkDestroy(st);
  pthread_mutex_unlock(&c->mu);
  return failed ? err->status : JIT_OK;
}

void *sj_cuda_function(sj_cuda *c, sj_cuda_module *m, const char *name, sj_error *err) {
  CUfunction f = NULL;
  if (make_current(c, err)) return NULL;
  CUresult r = c->cu.cuModuleGetFunction(&f, (CUmodule)m, name);
  if (r == CUDA_SUCCESS) return f;
  char call[320];
  snprintf(call, sizeof call, "cuModuleGetFunction(\"%.256s\")", name);
  cu_fail_emu(c, err, call, r);
  return NULL;
}

void sj_cuda_unload(sj_cuda *c, sj_cuda_module *m) {
  if (!m) return;
  c->cu.cuCtxSetCurrent(c->ctx);
  c->cu.cuModuleUnload((CUmodule)m);
}

/* --- memory --- */

int sj_cuda_alloc(sj_cuda *c, size_t bytes, sj_devptr *out, sj_error *err) {
  CUdeviceptr p = 0;
  *out = 0;
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuMemAlloc_v2(&p, bytes);
  if (r != CUDA_SUCCESS) {
    char emu[512], what[600];
    emu_message(c, emu, sizeof emu);
    snprintf(what, sizeof what, "%zu bytes requested%s%s", bytes, emu[0] ? "; " : "", emu);
    return cu_fail(c, err, "cuMemAlloc_v2", r, what);
  }
  *out = p;
  return JIT_OK;
}

int sj_cuda_free(sj_cuda *c, sj_devptr p, sj_error *err) {
  if (!p) return JIT_OK;
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuMemFree_v2(p);
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuMemFree_v2", r);
}

int sj_cuda_to_device(sj_cuda *c, sj_devptr dst, const void *src, size_t bytes, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuMemcpyHtoD_v2(dst, src, bytes);
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuMemcpyHtoD_v2", r);
}

int sj_cuda_to_host(sj_cuda *c, void *dst, sj_devptr src, size_t bytes, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuMemcpyDtoH_v2(dst, src, bytes);
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuMemcpyDtoH_v2", r);
}

/* --- launch --- */

static int check_dims(const char *what, const unsigned v[3], const int max[3], sj_error *err) {
  static const char axis[] = "xyz";
  for (int i = 0; i < 3; i++) {
    if (v[i] >= 1 && v[i] <= (unsigned)max[i]) continue;
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "launch refused: %s %ux%ux%u: %s.%c = %u is outside the device's range "
                        "1..%d (max %s dim %c)",
                        what, v[0], v[1], v[2], what, axis[i], v[i], max[i], what, axis[i]);
  }
  return 0;
}

/* The kernel's own limits, where the driver tells them: threads (from its registers or
 * .maxntid), static shared memory and the dynamic shared memory a launch may ask for (-1 when
 * unknown). */
static void kernel_limits(sj_cuda *c, CUfunction f, int *threads, int *fstatic, int *fdynamic) {
  int v;
  *threads = c->props.max_threads_per_block, *fstatic = 0, *fdynamic = -1;
  if (!c->cu.cuFuncGetAttribute) return;
  if (c->cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS &&
      v > 0 && v < *threads)
    *threads = v;
  if (c->cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS && v > 0)
    *fstatic = v;
  if (c->cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f) ==
          CUDA_SUCCESS &&
      v >= 0)
    *fdynamic = v;
}

int sj_cuda_shared_limit(const sj_cuda *c) {
  const sj_cuda_props *p = &c->props;
  return p->shared_per_block_optin > p->shared_per_block ? p->shared_per_block_optin
                                                         : p->shared_per_block;
}

/* The device limits, then the kernel's own: a launch the driver would refuse is refused here,
 * with the limit it exceeds named. */
static int check_launch(sj_cuda *c, CUfunction f, const unsigned grid[3], const unsigned block[3],
                        unsigned shared, sj_error *err) {
  const sj_cuda_props *p = &c->props;
  if (check_dims("block", block, p->max_block, err) || check_dims("grid", grid, p->max_grid, err))
    return err->status;
  unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
  int fmax, fshared, fdynamic, limit = sj_cuda_shared_limit(c);
  kernel_limits(c, f, &fmax, &fshared, &fdynamic);
  if (threads > (unsigned long long)p->max_threads_per_block)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "launch refused: block %ux%ux%u has %llu threads, above the device's max "
                        "threads per block (%d)",
                        block[0], block[1], block[2], threads, p->max_threads_per_block);
  if (threads > (unsigned long long)fmax)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "launch refused: block %ux%ux%u has %llu threads, above the kernel's max "
                        "threads per block (%d, from its registers or .maxntid)",
                        block[0], block[1], block[2], threads, fmax);
  if ((unsigned long long)shared + (unsigned)fshared > (unsigned long long)limit)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "launch refused: %u bytes of dynamic + %d of static shared memory exceed "
                        "the device's max shared memory per block (%d bytes with the opt-in, %d "
                        "without)",
                        shared, fshared, limit, p->shared_per_block);
  if (fdynamic >= 0 && shared > (unsigned)fdynamic)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "launch refused: %u bytes of dynamic shared memory exceed the kernel's max "
                        "dynamic shared memory (%d bytes: it has not opted in to more)",
                        shared, fdynamic);
  return 0;
}

int sj_cuda_allow_shared(sj_cuda *c, void *function, unsigned shared_bytes, sj_error *err) {
  const sj_cuda_props *p = &c->props;
  int limit = sj_cuda_shared_limit(c);
  if (!shared_bytes) return 0;
  if (shared_bytes > (unsigned)limit)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "the kernel needs %u bytes of shared memory per block, above the device's "
                        "max shared memory per block (%d bytes with the opt-in)",
                        shared_bytes, limit);
  if (!c->cu.cuFuncSetAttribute) {
    if (shared_bytes <= (unsigned)p->shared_per_block) return 0; /* no opt-in needed */
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "the kernel needs %u bytes of shared memory per block and the CUDA driver "
                        "library has no cuFuncSetAttribute to opt in above %d",
                        shared_bytes, p->shared_per_block);
  }
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuFuncSetAttribute(
      (CUfunction)function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared_bytes);
  return r == CUDA_SUCCESS
             ? JIT_OK
             : cu_fail_emu(c, err, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
}

int sj_cuda_launch(sj_cuda *c, void *function, const unsigned grid[3], const unsigned block[3],
                   unsigned shared_bytes, void **params, sj_error *err) {
  CUfunction f = function;
  if (make_current(c, err) || check_launch(c, f, grid, block, shared_bytes, err))
    return err->status;
  /* NULL stream: launches are ordered with the copies around them. */
  CUresult r = c->cu.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                    shared_bytes, NULL, params, NULL);
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuLaunchKernel", r);
}

int sj_cuda_synchronize(sj_cuda *c, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuCtxSynchronize();
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuCtxSynchronize", r);
}

/* --- events --- */

int sj_cuda_event_create(sj_cuda *c, sj_cuda_event **out, sj_error *err) {
  CUevent e = NULL;
  *out = NULL;
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuEventCreate(&e, CU_EVENT_DEFAULT);
  if (r != CUDA_SUCCESS) return cu_fail_emu(c, err, "cuEventCreate", r);
  *out = (sj_cuda_event *)e;
  return JIT_OK;
}

int sj_cuda_event_record(sj_cuda *c, sj_cuda_event *e, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuEventRecord((CUevent)e, NULL);
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuEventRecord", r);
}

int sj_cuda_event_elapsed(sj_cuda *c, sj_cuda_event *start, sj_cuda_event *end, float *ms,
                          sj_error *err) {
  *ms = 0;
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.cuEventSynchronize((CUevent)end);
  if (r != CUDA_SUCCESS) return cu_fail_emu(c, err, "cuEventSynchronize", r);
  r = c->cu.cuEventElapsedTime_v2(ms, (CUevent)start, (CUevent)end);
  return r == CUDA_SUCCESS ? JIT_OK : cu_fail_emu(c, err, "cuEventElapsedTime", r);
}

void sj_cuda_event_destroy(sj_cuda *c, sj_cuda_event *e) {
  if (!e) return;
  c->cu.cuCtxSetCurrent(c->ctx);
  c->cu.cuEventDestroy_v2((CUevent)e);
}

int sj_cuda_timer_start(sj_cuda *c, sj_cuda_timer *t, sj_error *err) {
  t->start = t->end = NULL;
  if (sj_cuda_event_create(c, &t->start, err) || sj_cuda_event_create(c, &t->end, err))
    return err->status;
  return sj_cuda_event_record(c, t->start, err);
}

int sj_cuda_timer_stop(sj_cuda *c, sj_cuda_timer *t, float *ms, sj_error *err) {
  if (sj_cuda_event_record(c, t->end, err)) return err->status;
  return sj_cuda_event_elapsed(c, t->start, t->end, ms, err);
}

void sj_cuda_timer_free(sj_cuda *c, sj_cuda_timer *t) {
  if (t->start) sj_cuda_event_destroy(c, t->start);
  if (t->end) sj_cuda_event_destroy(c, t->end);
  t->start = t->end = NULL;
}
