/* The CUDA driver API through dlopen: the real libcuda.so.1 or the project's emulator,
 * which exports the same symbols. cuda.h is deliberately not included so the library
 * builds on machines without the toolkit; the few types and constants used are declared
 * here with cuda.h's ABI and values. */
#include "host/cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stenciljit.h"

/* --- the subset of cuda.h we use --- */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef int CUjit_option; /* enums are int-sized in the driver's ABI */
typedef struct CUlinkState_st *CUlinkState;

enum {
  CU_SUCCESS = 0,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_JIT_INPUT_PTX = 1,
};

#define SJ_CUDA_LOG_SIZE 16384

/* Entry points, by the symbol names cuda.h's macros resolve to. */
typedef struct cu_api {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceTotalMem)(size_t *, CUdevice);
  CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*PrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)(void);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*FuncGetAttribute)(int *, int, CUfunction);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CUstream, void **, void **);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
  const char *(*EmuLastError)(void); /* only in the emulator */
  /* The driver's linker, for cubins kept in the on-disk cache; optional. */
  CUresult (*LinkCreate)(unsigned, CUjit_option *, void **, CUlinkState *);
  CUresult (*LinkAddData)(CUlinkState, int, void *, size_t, const char *, unsigned, CUjit_option *,
                          void **);
  CUresult (*LinkComplete)(CUlinkState, void **, size_t *);
  CUresult (*LinkDestroy)(CUlinkState);
} cu_api;

typedef struct cu_sym {
  const char *name, *fallback; /* fallback: older drivers export only the plain name */
  size_t offset;
  int optional;
} cu_sym;

#define SYM(field, name, fallback, optional)                                                       \
  { name, fallback, offsetof(cu_api, field), optional }
static const cu_sym cu_syms[] = {
    SYM(Init, "cuInit", NULL, 0),
    SYM(DriverGetVersion, "cuDriverGetVersion", NULL, 0),
    SYM(DeviceGetCount, "cuDeviceGetCount", NULL, 0),
    SYM(DeviceGet, "cuDeviceGet", NULL, 0),
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute", NULL, 0),
    SYM(DeviceGetName, "cuDeviceGetName", NULL, 0),
    SYM(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, 0),
    SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, 0),
    SYM(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", 0),
    SYM(CtxSetCurrent, "cuCtxSetCurrent", NULL, 0),
    SYM(CtxSynchronize, "cuCtxSynchronize", NULL, 0),
    SYM(ModuleLoadDataEx, "cuModuleLoadDataEx", NULL, 0),
    SYM(ModuleUnload, "cuModuleUnload", NULL, 0),
    SYM(ModuleGetFunction, "cuModuleGetFunction", NULL, 0),
    /* Only sharpens the launch check (per-kernel thread and shared limits). */
    SYM(FuncGetAttribute, "cuFuncGetAttribute", NULL, 1),
    SYM(MemAlloc, "cuMemAlloc_v2", NULL, 0),
    SYM(MemFree, "cuMemFree_v2", NULL, 0),
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL, 0),
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL, 0),
    SYM(LaunchKernel, "cuLaunchKernel", NULL, 0),
    SYM(GetErrorName, "cuGetErrorName", NULL, 0),
    SYM(GetErrorString, "cuGetErrorString", NULL, 0),
    SYM(EmuLastError, "emuGetLastErrorMessage", NULL, 1),
    SYM(LinkCreate, "cuLinkCreate_v2", "cuLinkCreate", 1),
    SYM(LinkAddData, "cuLinkAddData_v2", "cuLinkAddData", 1),
    SYM(LinkComplete, "cuLinkComplete", NULL, 1),
    SYM(LinkDestroy, "cuLinkDestroy", NULL, 1),
};
#undef SYM

struct sj_cuda {
  void *lib;
  cu_api cu;
  CUdevice dev;
  CUcontext ctx; /* the primary context, retained */
  sj_cuda_props props;
  /* Serializes module loads: they share the log buffers below. The emulator's last error
   * message is kept per thread, so launches need no lock. */
  pthread_mutex_t mu;
  char errlog[SJ_CUDA_LOG_SIZE], infolog[SJ_CUDA_LOG_SIZE];
};

/* --- errors --- */

/* The emulator's message of the last failure, copied now: the next driver call (even
 * cuGetErrorName) may overwrite it. */
static void emu_message(sj_cuda *c, char *buf, size_t len) {
  const char *m = c->cu.EmuLastError ? c->cu.EmuLastError() : NULL;
  snprintf(buf, len, "%s", m ? m : "");
}

/* "call failed: CUDA_ERROR_X (text)" followed by detail when non-empty. */
static int cu_fail(sj_cuda *c, sj_error *err, const char *call, CUresult r, const char *detail) {
  const char *name = NULL, *text = NULL;
  if (c->cu.GetErrorName(r, &name) != CU_SUCCESS || !name) name = NULL;
  if (c->cu.GetErrorString(r, &text) != CU_SUCCESS || !text) text = NULL;
  const char *sep = detail && *detail ? ": " : "", *d = detail ? detail : "";
  if (name)
    return sj_error_set(err, JIT_ERR_DEVICE, "%s failed: %s (%s)%s%s", call, name,
                        text ? text : "no description", sep, d);
  /* The toolkit's stub libcuda knows no names; say what it is, it is a common mistake. */
  const char *stub =
      r == 34 ? " (CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda, not a driver)" : "";
  return sj_error_set(err, JIT_ERR_DEVICE, "%s failed: CUresult %d%s%s%s", call, r, stub, sep, d);
}

/* Makes the context current on this thread: callers may come from any thread, and the
 * call costs next to nothing when it is current already. */
static int make_current(sj_cuda *c, sj_error *err) {
  CUresult r = c->cu.CtxSetCurrent(c->ctx);
  return r == CU_SUCCESS ? 0 : cu_fail(c, err, "cuCtxSetCurrent", r, NULL);
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

static int attr(sj_cuda *c, int *out, int which, const char *name, sj_error *err) {
  CUresult r = c->cu.DeviceGetAttribute(out, which, c->dev);
  if (r == CU_SUCCESS) return 0;
  char call[128];
  snprintf(call, sizeof call, "cuDeviceGetAttribute(%s)", name);
  return cu_fail(c, err, call, r, NULL);
}

static int read_attrs(sj_cuda *c, sj_error *err) {
  sj_cuda_props *p = &c->props;
  struct {
    int *out, which;
    const char *name;
  } a[] = {
      /* CU_DEVICE_ATTRIBUTE_* values from cuda.h */
      {&p->cc_major, 75, "COMPUTE_CAPABILITY_MAJOR"},
      {&p->cc_minor, 76, "COMPUTE_CAPABILITY_MINOR"},
      {&p->multiprocessors, 16, "MULTIPROCESSOR_COUNT"},
      {&p->max_threads_per_block, 1, "MAX_THREADS_PER_BLOCK"},
      {&p->max_block[0], 2, "MAX_BLOCK_DIM_X"},
      {&p->max_block[1], 3, "MAX_BLOCK_DIM_Y"},
      {&p->max_block[2], 4, "MAX_BLOCK_DIM_Z"},
      {&p->max_grid[0], 5, "MAX_GRID_DIM_X"},
      {&p->max_grid[1], 6, "MAX_GRID_DIM_Y"},
      {&p->max_grid[2], 7, "MAX_GRID_DIM_Z"},
      {&p->shared_per_block, 8, "MAX_SHARED_MEMORY_PER_BLOCK"},
      {&p->shared_per_block_optin, 97, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"},
      {&p->regs_per_block, 12, "MAX_REGISTERS_PER_BLOCK"},
      {&p->warp_size, 10, "WARP_SIZE"},
  };
  for (size_t i = 0; i < sizeof a / sizeof *a; i++)
    if (attr(c, a[i].out, a[i].which, a[i].name, err)) return err->status;
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
  if ((r = c->cu.Init(0)) != CU_SUCCESS) return cu_fail(c, err, "cuInit", r, NULL);
  if ((r = c->cu.DriverGetVersion(&c->props.driver_version)) != CU_SUCCESS)
    return cu_fail(c, err, "cuDriverGetVersion", r, NULL);
  if ((r = c->cu.DeviceGetCount(&n)) != CU_SUCCESS)
    return cu_fail(c, err, "cuDeviceGetCount", r, NULL);
  if (n < 1) return sj_error_set(err, JIT_ERR_DEVICE, "no CUDA device: the driver reports 0");
  if ((r = c->cu.DeviceGet(&c->dev, 0)) != CU_SUCCESS)
    return cu_fail(c, err, "cuDeviceGet", r, NULL);
  if ((r = c->cu.DeviceGetName(c->props.name, sizeof c->props.name - 1, c->dev)) != CU_SUCCESS)
    return cu_fail(c, err, "cuDeviceGetName", r, NULL);
  if ((r = c->cu.DeviceTotalMem(&c->props.total_mem, c->dev)) != CU_SUCCESS)
    return cu_fail(c, err, "cuDeviceTotalMem_v2", r, NULL);
  if (read_attrs(c, err) || choose_ptx(c, err)) return err->status;
  if ((r = c->cu.PrimaryCtxRetain(&c->ctx, c->dev)) != CU_SUCCESS) {
    c->ctx = NULL;
    return cu_fail(c, err, "cuDevicePrimaryCtxRetain", r, NULL);
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
  if (c->ctx) c->cu.PrimaryCtxRelease(c->dev);
  if (c->lib) dlclose(c->lib);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

const sj_cuda_props *sj_cuda_get_props(const sj_cuda *c) {
  return &c->props;
}

/* The environment's choice, else the build tree's library while it exists (tests, a
 * library used from its build), else the installed one. Never NULL: that would make
 * sj_cuda_open load the real driver. */
const char *sj_cuda_emulator_path(void) {
  const char *env = getenv("JIT_EMU_LIBRARY");
  if (env && *env) return env;
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

static CUresult load_locked(sj_cuda *c, const char *ptx, CUmodule *m, char *log, size_t len) {
  CUjit_option opt[4] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *val[4] = {c->errlog, (void *)(uintptr_t)sizeof c->errlog, c->infolog,
                  (void *)(uintptr_t)sizeof c->infolog};
  c->errlog[0] = c->infolog[0] = 0;
  CUresult r = c->cu.ModuleLoadDataEx(m, ptx, 4, opt, val);
  if (r == CU_SUCCESS) return r;
  /* The sizes come back as the bytes written; never trust the text to be terminated. */
  c->errlog[sizeof c->errlog - 1] = c->infolog[sizeof c->infolog - 1] = 0;
  trimmed(log, len, c->errlog[0] ? c->errlog : c->infolog);
  if (!log[0]) emu_message(c, log, len);
  return r;
}

int sj_cuda_load(sj_cuda *c, const char *ptx, sj_cuda_module **out, sj_error *err) {
  CUmodule m = NULL;
  char log[sizeof err->msg];
  *out = NULL;
  if (make_current(c, err)) return err->status;
  pthread_mutex_lock(&c->mu);
  CUresult r = load_locked(c, ptx, &m, log, sizeof log);
  if (r != CU_SUCCESS) cu_fail(c, err, "cuModuleLoadDataEx", r, log);
  pthread_mutex_unlock(&c->mu);
  if (r != CU_SUCCESS) return err->status;
  *out = (sj_cuda_module *)m; /* the handle itself: nothing else to keep per module */
  return JIT_OK;
}

int sj_cuda_can_link(const sj_cuda *c) {
  return c->cu.LinkCreate && c->cu.LinkAddData && c->cu.LinkComplete && c->cu.LinkDestroy;
}

/* The cubin belongs to the link state until cuLinkDestroy: copied out before. */
static CUresult link_locked(sj_cuda *c, const char *ptx, void **image, size_t *size, char *log,
                            size_t len) {
  CUjit_option opt[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *val[2] = {c->errlog, (void *)(uintptr_t)sizeof c->errlog};
  CUlinkState state = NULL;
  void *cubin = NULL;
  c->errlog[0] = 0;
  CUresult r = c->cu.LinkCreate(2, opt, val, &state);
  if (r == CU_SUCCESS)
    r = c->cu.LinkAddData(state, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "stenciljit.ptx",
                          0, NULL, NULL);
  if (r == CU_SUCCESS) r = c->cu.LinkComplete(state, &cubin, size);
  if (r == CU_SUCCESS && !(*image = malloc(*size ? *size : 1))) r = 2; /* OUT_OF_MEMORY */
  if (r == CU_SUCCESS) memcpy(*image, cubin, *size);
  c->errlog[sizeof c->errlog - 1] = 0;
  if (r != CU_SUCCESS) trimmed(log, len, c->errlog);
  if (state) c->cu.LinkDestroy(state);
  return r;
}

int sj_cuda_link(sj_cuda *c, const char *ptx, void **image, size_t *size, sj_error *err) {
  char log[sizeof err->msg];
  *image = NULL;
  *size = 0;
  if (!sj_cuda_can_link(c))
    return sj_error_set(err, JIT_ERR_DEVICE, "the CUDA driver library has no linker");
  if (make_current(c, err)) return err->status;
  pthread_mutex_lock(&c->mu);
  CUresult r = link_locked(c, ptx, image, size, log, sizeof log);
  if (r != CU_SUCCESS) cu_fail(c, err, "linking PTX (cuLinkCreate, AddData, Complete)", r, log);
  pthread_mutex_unlock(&c->mu);
  return r == CU_SUCCESS ? JIT_OK : err->status;
}

void *sj_cuda_function(sj_cuda *c, sj_cuda_module *m, const char *name, sj_error *err) {
  CUfunction f = NULL;
  if (make_current(c, err)) return NULL;
  CUresult r = c->cu.ModuleGetFunction(&f, (CUmodule)m, name);
  if (r == CU_SUCCESS) return f;
  char call[320];
  snprintf(call, sizeof call, "cuModuleGetFunction(\"%.256s\")", name);
  cu_fail(c, err, call, r, NULL);
  return NULL;
}

void sj_cuda_unload(sj_cuda *c, sj_cuda_module *m) {
  if (!m) return;
  c->cu.CtxSetCurrent(c->ctx);
  c->cu.ModuleUnload((CUmodule)m);
}

/* --- memory --- */

int sj_cuda_alloc(sj_cuda *c, size_t bytes, sj_devptr *out, sj_error *err) {
  CUdeviceptr p = 0;
  *out = 0;
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.MemAlloc(&p, bytes);
  if (r != CU_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "%zu bytes requested", bytes);
    return cu_fail(c, err, "cuMemAlloc_v2", r, what);
  }
  *out = p;
  return JIT_OK;
}

void sj_cuda_free(sj_cuda *c, sj_devptr p) {
  if (!p) return;
  c->cu.CtxSetCurrent(c->ctx);
  c->cu.MemFree(p);
}

int sj_cuda_to_device(sj_cuda *c, sj_devptr dst, const void *src, size_t bytes, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.MemcpyHtoD(dst, src, bytes);
  return r == CU_SUCCESS ? JIT_OK : cu_fail(c, err, "cuMemcpyHtoD_v2", r, NULL);
}

int sj_cuda_to_host(sj_cuda *c, void *dst, sj_devptr src, size_t bytes, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.MemcpyDtoH(dst, src, bytes);
  return r == CU_SUCCESS ? JIT_OK : cu_fail(c, err, "cuMemcpyDtoH_v2", r, NULL);
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

/* The device limits, then the kernel's own (registers and .maxntid lower the thread
 * limit, static shared memory adds to the dynamic amount) when the driver tells them. */
static int check_launch(sj_cuda *c, CUfunction f, const unsigned grid[3], const unsigned block[3],
                        unsigned shared, sj_error *err) {
  const sj_cuda_props *p = &c->props;
  if (check_dims("block", block, p->max_block, err) || check_dims("grid", grid, p->max_grid, err))
    return err->status;
  unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
  int fmax = p->max_threads_per_block, fshared = 0;
  if (c->cu.FuncGetAttribute) {
    int v;
    if (c->cu.FuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CU_SUCCESS &&
        v > 0 && v < fmax)
      fmax = v;
    if (c->cu.FuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CU_SUCCESS && v > 0)
      fshared = v;
  }
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
  if ((unsigned long long)shared + (unsigned)fshared > (unsigned long long)p->shared_per_block)
    return sj_error_set(err, JIT_ERR_DEVICE,
                        "launch refused: %u bytes of dynamic + %d of static shared memory exceed "
                        "the device's max shared memory per block (%d bytes; the opt-in limit "
                        "%d is not used)",
                        shared, fshared, p->shared_per_block, p->shared_per_block_optin);
  return 0;
}

static int launch(sj_cuda *c, CUfunction f, const unsigned g[3], const unsigned b[3],
                  unsigned shared, void **params, sj_error *err) {
  /* NULL stream: launches are ordered with the copies around them. */
  CUresult r =
      c->cu.LaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], shared, NULL, params, NULL);
  if (r == CU_SUCCESS) return JIT_OK;
  char detail[sizeof err->msg];
  emu_message(c, detail, sizeof detail);
  return cu_fail(c, err, "cuLaunchKernel", r, detail);
}

int sj_cuda_launch(sj_cuda *c, void *function, const unsigned grid[3], const unsigned block[3],
                   unsigned shared_bytes, void **params, sj_error *err) {
  CUfunction f = function;
  if (make_current(c, err) || check_launch(c, f, grid, block, shared_bytes, err))
    return err->status;
  return launch(c, f, grid, block, shared_bytes, params, err);
}

int sj_cuda_synchronize(sj_cuda *c, sj_error *err) {
  if (make_current(c, err)) return err->status;
  CUresult r = c->cu.CtxSynchronize();
  if (r == CU_SUCCESS) return JIT_OK;
  char detail[sizeof err->msg];
  emu_message(c, detail, sizeof detail);
  return cu_fail(c, err, "cuCtxSynchronize", r, detail);
}
