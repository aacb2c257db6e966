/* The CUDA driver API of the emulated device (an H100-like sm_90 with driver 13.0).
 *
 * Launches are synchronous: cuLaunchKernel runs the whole grid before it returns, so
 * streams and events only order what is already ordered (events record host wall time).
 * A launch that fails a strict check (out-of-bounds access, unwritten register, barrier
 * divergence, shared-memory race) returns its error and, as on a real GPU, leaves the
 * context in a sticky error state until it is destroyed. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "internal.h"
#include "emu.h"

#ifdef EMU_WITH_CUDA_H
/* cuda.h 13 declares cuCtxCreate as cuCtxCreate_v4; the _v2 entry point is still exported */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
#else
#define CUDAAPI
#include "driver_api.h"
#endif

struct CUctx_st {
  int refs, primary;
  CUresult sticky;
  struct CUmod_st *mods;
};
struct CUmod_st {
  emu_module *m;
  struct CUctx_st *ctx;
  struct CUmod_st *next;
  struct CUfunc_st *funcs;
};
struct CUfunc_st {
  emu_func *f;
  struct CUmod_st *mod;
};
struct CUstream_st {
  int magic;
};
struct CUevent_st {
  int recorded;
  double ms;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static struct CUctx_st primary_ctx = {0, 1, CUDA_SUCCESS, NULL};
static struct CUctx_st *contexts[64];
static __thread struct CUctx_st *current;
static __thread char last_msg[4096];
static unsigned long long n_alloc, n_load, n_launch;

#define LOCK() pthread_mutex_lock(&lock)
#define UNLOCK() pthread_mutex_unlock(&lock)

const char *emuGetLastErrorMessage(void) {
  return last_msg;
}

void emu_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_msg, sizeof last_msg, fmt, ap);
  va_end(ap);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* JIT_EMU_FAIL=alloc:3,load:1,launch:2 -> does call number n of this kind fail? */
static int inject(const char *kind, unsigned long long n) {
  const char *e = getenv("JIT_EMU_FAIL");
  if (!e) return 0;
  size_t kl = strlen(kind);
  for (const char *p = e; *p;) {
    if (!strncmp(p, kind, kl) && p[kl] == ':') {
      char *end;
      unsigned long long v = strtoull(p + kl + 1, &end, 10);
      if (v == n) return 1;
      p = end;
    }
    while (*p && *p != ',') p++;
    if (*p == ',') p++;
  }
  return 0;
}

static int ctx_valid(struct CUctx_st *c) {
  if (!c) return 0;
  if (c == &primary_ctx) return primary_ctx.refs > 0;
  for (int k = 0; k < 64; k++)
    if (contexts[k] == c) return 1;
  return 0;
}

/* The current context, or an error (no context, or its sticky error). */
static CUresult need_ctx(void) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!ctx_valid(current)) return CUDA_ERROR_INVALID_CONTEXT;
  return current->sticky;
}

/* ---------- initialisation, device ---------- */

CUresult CUDAAPI cuInit(unsigned int Flags) {
  if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  LOCK();
  initialized = 1;
  UNLOCK();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion) {
  if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = 13000;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  snprintf(name, (size_t)len, "%s", "NVIDIA H100 (stenciljit PTX emulator)");
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  *bytes = (size_t)80 << 30;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  int v;
  switch ((int)attrib) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    v = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    v = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    v = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    v = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    v = 48 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
    v = 64 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    v = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    v = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    v = 1980000;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    v = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_INTEGRATED:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
    v = 2619000;
    break;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    v = 5120;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    v = 50 * 1024 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    v = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    v = 1;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    v = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    v = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    v = 228 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    v = 65536;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    v = 227 * 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
    v = 32;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pi = v;
  return CUDA_SUCCESS;
}

/* ---------- contexts ---------- */

static void ctx_teardown(struct CUctx_st *c) {
  while (c->mods) {
    struct CUmod_st *m = c->mods;
    c->mods = m->next;
    emu_module_free(m->m);
    free(m->funcs);
    free(m);
  }
  emu_mem_free_owner(c);
  c->sticky = CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  LOCK();
  primary_ctx.refs++;
  *pctx = &primary_ctx;
  UNLOCK();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  LOCK();
  CUresult rc = CUDA_SUCCESS;
  if (primary_ctx.refs <= 0)
    rc = CUDA_ERROR_INVALID_CONTEXT;
  else if (--primary_ctx.refs == 0)
    ctx_teardown(&primary_ctx);
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  (void)flags;
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  LOCK();
  int k;
  for (k = 0; k < 64 && contexts[k]; k++) {
  }
  if (k == 64) {
    UNLOCK();
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  struct CUctx_st *c = calloc(1, sizeof *c);
  if (!c) {
    UNLOCK();
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  c->refs = 1;
  contexts[k] = c;
  current = c;
  *pctx = c;
  UNLOCK();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  LOCK();
  int k;
  for (k = 0; k < 64 && contexts[k] != ctx; k++) {
  }
  if (!ctx || k == 64) {
    UNLOCK();
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  ctx_teardown(ctx);
  contexts[k] = NULL;
  free(ctx);
  if (current == ctx) current = NULL;
  UNLOCK();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  LOCK();
  int ok = !ctx || ctx_valid(ctx);
  if (ok) current = ctx;
  UNLOCK();
  return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  *pctx = ctx_valid(current) ? current : NULL;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  LOCK();
  CUresult rc = need_ctx();
  UNLOCK();
  return rc;
}

/* ---------- modules ---------- */

static const uint32_t fatbin_magic = 0xBA55ED50u;

static CUresult load(CUmodule *module, const void *image, unsigned int numOptions,
                     CUjit_option *options, void **optionValues) {
  double t0 = now_ms();
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  if (numOptions && (!options || !optionValues)) return CUDA_ERROR_INVALID_VALUE;
  char *elog = NULL, *ilog = NULL;
  size_t elen = 0, ilen = 0;
  int eidx = -1, iidx = -1, tidx = -1;
  for (unsigned k = 0; k < numOptions; k++) {
    switch ((int)options[k]) {
    case CU_JIT_ERROR_LOG_BUFFER:
      elog = optionValues[k];
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      elen = (size_t)(uintptr_t)optionValues[k];
      eidx = (int)k;
      break;
    case CU_JIT_INFO_LOG_BUFFER:
      ilog = optionValues[k];
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      ilen = (size_t)(uintptr_t)optionValues[k];
      iidx = (int)k;
      break;
    case CU_JIT_WALL_TIME:
      tidx = (int)k;
      break;
    case CU_JIT_MAX_REGISTERS:
    case CU_JIT_THREADS_PER_BLOCK:
    case CU_JIT_OPTIMIZATION_LEVEL:
    case CU_JIT_TARGET_FROM_CUCONTEXT:
    case CU_JIT_TARGET:
    case CU_JIT_FALLBACK_STRATEGY:
    case CU_JIT_GENERATE_DEBUG_INFO:
    case CU_JIT_LOG_VERBOSE:
    case CU_JIT_GENERATE_LINE_INFO:
    case CU_JIT_CACHE_MODE:
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  char err[4096] = "", info[1024] = "";
  emu_module *m = NULL;
  CUresult rc;
  uint32_t magic;
  memcpy(&magic, image, 4);
  n_load++;
  if (inject("load", n_load)) {
    snprintf(err, sizeof err,
             "ptxas application ptx input, line 1; error   : injected module load failure "
             "(JIT_EMU_FAIL=load:%llu)",
             n_load);
    rc = CUDA_ERROR_INVALID_PTX;
  } else if (!memcmp(image,
                     "\x7f"
                     "ELF",
                     4) ||
             magic == fatbin_magic) {
    snprintf(err, sizeof err, "the emulator loads PTX text only, not cubin or fatbin images");
    rc = CUDA_ERROR_INVALID_IMAGE;
  } else
    rc = emu_parse(image, &m, err, sizeof err);
  if (rc == CUDA_SUCCESS) {
    struct CUmod_st *h = calloc(1, sizeof *h);
    if (!h) abort();
    h->m = m;
    h->ctx = current;
    h->funcs = calloc((size_t)m->nfuncs + 1, sizeof *h->funcs);
    if (!h->funcs) abort();
    size_t used = 0;
    for (int k = 0; k < m->nfuncs; k++) {
      h->funcs[k].f = m->funcs[k];
      h->funcs[k].mod = h;
      int n = snprintf(info + used, sizeof info - used,
                       "%semu info    : Function properties for %s: %d instructions, %u "
                       "registers, %u bytes static shared, %u bytes local",
                       used ? "\n" : "", m->funcs[k]->name, m->funcs[k]->ncode - 1,
                       m->funcs[k]->nregs, m->funcs[k]->shared_static, m->funcs[k]->local_size);
      if (n > 0 && (size_t)n < sizeof info - used) used += (size_t)n;
    }
    h->next = current->mods;
    current->mods = h;
    *module = h;
    last_msg[0] = 0;
  } else
    snprintf(last_msg, sizeof last_msg, "%s", err);
  if (elog && eidx >= 0 && elen) {
    snprintf(elog, elen, "%s", err);
    optionValues[eidx] = (void *)(uintptr_t)(err[0] ? strlen(elog) + 1 : 0);
  }
  if (ilog && iidx >= 0 && ilen) {
    snprintf(ilog, ilen, "%s", info);
    optionValues[iidx] = (void *)(uintptr_t)(info[0] ? strlen(ilog) + 1 : 0);
  }
  if (tidx >= 0) {
    float ms = (float)(now_ms() - t0);
    optionValues[tidx] = NULL;
    memcpy(&optionValues[tidx], &ms, sizeof ms);
  }
  return rc;
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                    CUjit_option *options, void **optionValues) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc) rc = load(module, image, numOptions, options, optionValues);
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc) rc = load(module, image, 0, NULL, NULL);
  UNLOCK();
  return rc;
}

static int mod_valid(struct CUmod_st *h) {
  if (!h || !ctx_valid(current)) return 0;
  for (struct CUmod_st *m = current->mods; m; m = m->next)
    if (m == h) return 1;
  return 0;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !mod_valid(hmod)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    for (struct CUmod_st **pp = &current->mods; *pp; pp = &(*pp)->next)
      if (*pp == hmod) {
        *pp = hmod->next;
        break;
      }
    emu_module_free(hmod->m);
    free(hmod->funcs);
    free(hmod);
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && (!hfunc || !name)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && !mod_valid(hmod)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    rc = CUDA_ERROR_NOT_FOUND;
    for (int k = 0; k < hmod->m->nfuncs; k++)
      if (!strcmp(hmod->m->funcs[k]->name, name)) {
        *hfunc = &hmod->funcs[k];
        rc = CUDA_SUCCESS;
      }
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                      const char *name) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !name) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && !mod_valid(hmod)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    rc = CUDA_ERROR_NOT_FOUND;
    for (int k = 0; k < hmod->m->nvars; k++) {
      emu_var *v = hmod->m->vars[k];
      if ((v->space == EMU_SP_GLOBAL || v->space == EMU_SP_CONST) && !strcmp(v->name, name)) {
        if (dptr) *dptr = v->addr;
        if (bytes) *bytes = v->size;
        rc = CUDA_SUCCESS;
      }
    }
  }
  UNLOCK();
  return rc;
}

static int func_valid(struct CUfunc_st *f) {
  if (!f || !ctx_valid(current)) return 0;
  for (struct CUmod_st *m = current->mods; m; m = m->next)
    if (f >= m->funcs && f < m->funcs + m->m->nfuncs) return 1;
  return 0;
}

static uint32_t max_threads(const emu_func *f) {
  if (f->reqntid[0]) return f->reqntid[0] * f->reqntid[1] * f->reqntid[2];
  if (f->maxntid[0]) return f->maxntid[0] * f->maxntid[1] * f->maxntid[2];
  return 1024;
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !pi) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && !func_valid(hfunc)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    const emu_func *f = hfunc->f;
    uint64_t cbytes = 0;
    for (int k = 0; k < f->mod->nvars; k++)
      if (f->mod->vars[k]->space == EMU_SP_CONST) cbytes += f->mod->vars[k]->size;
    switch ((int)attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *pi = (int)max_threads(f);
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *pi = (int)f->shared_static;
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *pi = (int)cbytes;
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *pi = (int)f->local_size;
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *pi = f->nregs > 255 ? 255 : (int)f->nregs;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *pi = f->mod->ptx_major * 10 + f->mod->ptx_minor;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *pi = 90;
      break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
      *pi = 0;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *pi = f->max_dyn_shared ? f->max_dyn_shared : (int)(48 * 1024 - f->shared_static);
      break;
    default:
      rc = CUDA_ERROR_INVALID_VALUE;
      break;
    }
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !func_valid(hfunc)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    if ((int)attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && value >= 0 &&
        (uint64_t)value + hfunc->f->shared_static <= 227 * 1024)
      hfunc->f->max_dyn_shared = value;
    else
      rc = CUDA_ERROR_INVALID_VALUE;
  }
  UNLOCK();
  return rc;
}

/* ---------- launch ---------- */

static CUresult launch(struct CUfunc_st *hf, const unsigned grid[3], const unsigned block[3],
                       unsigned shared, void **kernelParams, void **extra) {
  emu_func *f = hf->f;
  uint64_t nthreads = (uint64_t)block[0] * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || grid[0] > 2147483647u || grid[1] > 65535 ||
      grid[2] > 65535) {
    emu_set_error("kernel '%s': invalid grid (%u,%u,%u)", f->name, grid[0], grid[1], grid[2]);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!nthreads || block[0] > 1024 || block[1] > 1024 || block[2] > 64 || nthreads > 1024) {
    emu_set_error("kernel '%s': invalid block (%u,%u,%u)", f->name, block[0], block[1], block[2]);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (f->reqntid[0] &&
      (block[0] != f->reqntid[0] || block[1] != f->reqntid[1] || block[2] != f->reqntid[2])) {
    emu_set_error("kernel '%s': block (%u,%u,%u) differs from .reqntid %u, %u, %u", f->name,
                  block[0], block[1], block[2], f->reqntid[0], f->reqntid[1], f->reqntid[2]);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (f->maxntid[0] && nthreads > (uint64_t)f->maxntid[0] * f->maxntid[1] * f->maxntid[2]) {
    emu_set_error("kernel '%s': %llu threads per block exceed .maxntid %u, %u, %u", f->name,
                  (unsigned long long)nthreads, f->maxntid[0], f->maxntid[1], f->maxntid[2]);
    return CUDA_ERROR_INVALID_VALUE;
  }
  uint64_t dynmax = f->max_dyn_shared
                        ? (uint64_t)f->max_dyn_shared
                        : (f->shared_static < 48 * 1024 ? 48 * 1024 - f->shared_static : 0);
  if (f->shared_static > 48 * 1024 || shared > dynmax) {
    emu_set_error(
        "kernel '%s': %u bytes of static and %u bytes of dynamic shared memory exceed "
        "the limit (48 KiB, or 227 KiB with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
        f->name, f->shared_static, shared);
    return CUDA_ERROR_INVALID_VALUE;
  }
  uint8_t *params = calloc(1, f->param_size ? f->param_size : 1);
  if (!params) return CUDA_ERROR_OUT_OF_MEMORY;
  if (kernelParams && extra) {
    free(params);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (kernelParams) {
    for (int k = 0; k < f->nparams; k++) {
      if (!kernelParams[k]) {
        free(params);
        emu_set_error("kernel '%s': kernelParams[%d] is NULL", f->name, k);
        return CUDA_ERROR_INVALID_VALUE;
      }
      memcpy(params + f->params[k].offset, kernelParams[k], f->params[k].size);
    }
  } else if (extra) {
    void *buf = NULL;
    size_t size = 0;
    int have_size = 0;
    for (int k = 0; extra[k] != EMU_LAUNCH_PARAM_END; k += 2) {
      if (extra[k] == EMU_LAUNCH_PARAM_BUFFER_POINTER)
        buf = extra[k + 1];
      else if (extra[k] == EMU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (extra[k + 1]) size = *(size_t *)extra[k + 1], have_size = 1;
      } else {
        free(params);
        return CUDA_ERROR_INVALID_VALUE;
      }
    }
    if (!buf || !have_size || size < f->param_size) {
      free(params);
      emu_set_error("kernel '%s': extra parameter buffer missing or smaller than %u bytes", f->name,
                    f->param_size);
      return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(params, buf, f->param_size);
  } else if (f->nparams) {
    free(params);
    emu_set_error("kernel '%s': no kernel parameters given", f->name);
    return CUDA_ERROR_INVALID_VALUE;
  }
  n_launch++;
  if (inject("launch", n_launch)) {
    free(params);
    emu_set_error("kernel '%s': injected launch failure (JIT_EMU_FAIL=launch:%llu)", f->name,
                  n_launch);
    current->sticky = CUDA_ERROR_LAUNCH_FAILED;
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  emu_stats st;
  emu_stats_init(&st);
  emu_launch L;
  memset(&L, 0, sizeof L);
  L.fn = f;
  memcpy(L.grid, grid, sizeof L.grid);
  memcpy(L.block, block, sizeof L.block);
  L.dyn_shared = shared;
  L.params = params;
  L.st = &st;
  CUresult rc = emu_execute(&L);
  const char *path = getenv("JIT_EMU_STATS");
  if (path && *path) emu_stats_write(&st, path, f->name, grid, block);
  emu_stats_free(&st);
  free(params);
  if (rc) {
    snprintf(last_msg, sizeof last_msg, "%s", L.msg);
    fprintf(stderr, "stenciljit emulator: %s\n", L.msg);
    if (rc != CUDA_ERROR_OUT_OF_MEMORY) current->sticky = rc;
  } else
    last_msg[0] = 0;
  return rc;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void **kernelParams,
                                void **extra) {
  (void)hStream;
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !func_valid(f)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    unsigned g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    rc = launch(f, g, b, sharedMemBytes, kernelParams, extra);
  }
  UNLOCK();
  return rc;
}

/* ---------- memory ---------- */

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && (!dptr || !bytesize)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) {
    n_alloc++;
    if (inject("alloc", n_alloc)) {
      emu_set_error("injected allocation failure (JIT_EMU_FAIL=alloc:%llu)", n_alloc);
      rc = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
      uint64_t d;
      rc = emu_mem_alloc_owned(bytesize, &d, current);
      if (!rc) *dptr = d;
    }
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && dptr)
    rc = emu_mem_owned_by(dptr, current) ? emu_mem_free(dptr) : CUDA_ERROR_INVALID_VALUE;
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && ByteCount) {
    void *h = emu_mem_host(dstDevice, ByteCount);
    if (!h || !srcHost)
      rc = CUDA_ERROR_INVALID_VALUE;
    else
      memcpy(h, srcHost, ByteCount);
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && ByteCount) {
    void *h = emu_mem_host(srcDevice, ByteCount);
    if (!h || !dstHost)
      rc = CUDA_ERROR_INVALID_VALUE;
    else
      memcpy(dstHost, h, ByteCount);
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && ByteCount) {
    void *d = emu_mem_host(dstDevice, ByteCount), *s = emu_mem_host(srcDevice, ByteCount);
    if (!d || !s)
      rc = CUDA_ERROR_INVALID_VALUE;
    else
      memmove(d, s, ByteCount);
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && N) {
    void *d = emu_mem_host(dstDevice, N);
    if (!d)
      rc = CUDA_ERROR_INVALID_VALUE;
    else
      memset(d, uc, N);
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && N) {
    uint8_t *d = N > SIZE_MAX / 4 ? NULL : emu_mem_host(dstDevice, N * 4);
    if (!d || dstDevice % 4)
      rc = CUDA_ERROR_INVALID_VALUE;
    else
      for (size_t k = 0; k < N; k++) memcpy(d + 4 * k, &ui, 4);
  }
  UNLOCK();
  return rc;
}

/* ---------- streams and events ---------- */

static int stream_ok(CUstream s) {
  return !s || s == (CUstream)0x1 || s == (CUstream)0x2 || s->magic == 0x5173;
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  (void)Flags;
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !phStream) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) {
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
      rc = CUDA_ERROR_OUT_OF_MEMORY;
    else
      s->magic = 0x5173, *phStream = s;
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !stream_ok(hStream)) rc = CUDA_ERROR_INVALID_HANDLE;
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!hStream || hStream == (CUstream)0x1 || hStream == (CUstream)0x2 || hStream->magic != 0x5173)
    return CUDA_ERROR_INVALID_HANDLE;
  hStream->magic = 0;
  free(hStream);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  (void)Flags;
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !phEvent) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) {
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
      rc = CUDA_ERROR_OUT_OF_MEMORY;
    else
      *phEvent = e;
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && (!hEvent || !stream_ok(hStream))) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    hEvent->recorded = 1;
    hEvent->ms = now_ms();
  }
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !hEvent) rc = CUDA_ERROR_INVALID_HANDLE;
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  LOCK();
  CUresult rc = need_ctx();
  if (!rc && !pMilliseconds) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && (!hStart || !hEnd)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc && (!hStart->recorded || !hEnd->recorded)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) *pMilliseconds = (float)(hEnd->ms - hStart->ms);
  UNLOCK();
  return rc;
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!hEvent) return CUDA_ERROR_INVALID_HANDLE;
  free(hEvent);
  return CUDA_SUCCESS;
}

/* ---------- errors ---------- */

static const struct {
  int code;
  const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t k = 0; k < sizeof errors / sizeof *errors; k++)
    if (errors[k].code == (int)error) {
      *pStr = errors[k].text;
      return CUDA_SUCCESS;
    }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t k = 0; k < sizeof errors / sizeof *errors; k++)
    if (errors[k].code == (int)error) {
      *pStr = errors[k].name;
      return CUDA_SUCCESS;
    }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

#ifdef EMU_WITH_CUDA_H
/* Signature check against cuda.h's versioned function-pointer types (cudaTypedefs.h): a
 * mismatch is an incompatible-pointer error, which the check build turns into a failure. */
#include <cudaTypedefs.h>
#define CHECK(fn, pfn) static pfn emu_check_##fn __attribute__((unused)) = fn;
CHECK(cuInit, PFN_cuInit_v2000)
CHECK(cuDriverGetVersion, PFN_cuDriverGetVersion_v2020)
CHECK(cuDeviceGet, PFN_cuDeviceGet_v2000)
CHECK(cuDeviceGetCount, PFN_cuDeviceGetCount_v2000)
CHECK(cuDeviceGetAttribute, PFN_cuDeviceGetAttribute_v2000)
CHECK(cuDeviceGetName, PFN_cuDeviceGetName_v2000)
CHECK(cuDeviceTotalMem_v2, PFN_cuDeviceTotalMem_v3020)
CHECK(cuDevicePrimaryCtxRetain, PFN_cuDevicePrimaryCtxRetain_v7000)
CHECK(cuDevicePrimaryCtxRelease_v2, PFN_cuDevicePrimaryCtxRelease_v11000)
CHECK(cuCtxCreate_v2, PFN_cuCtxCreate_v3020)
CHECK(cuCtxDestroy_v2, PFN_cuCtxDestroy_v4000)
CHECK(cuCtxSetCurrent, PFN_cuCtxSetCurrent_v4000)
CHECK(cuCtxGetCurrent, PFN_cuCtxGetCurrent_v4000)
CHECK(cuCtxSynchronize, PFN_cuCtxSynchronize_v2000)
CHECK(cuModuleLoadData, PFN_cuModuleLoadData_v2000)
CHECK(cuModuleLoadDataEx, PFN_cuModuleLoadDataEx_v2010)
CHECK(cuModuleUnload, PFN_cuModuleUnload_v2000)
CHECK(cuModuleGetFunction, PFN_cuModuleGetFunction_v2000)
CHECK(cuModuleGetGlobal_v2, PFN_cuModuleGetGlobal_v3020)
CHECK(cuFuncGetAttribute, PFN_cuFuncGetAttribute_v2020)
CHECK(cuFuncSetAttribute, PFN_cuFuncSetAttribute_v9000)
CHECK(cuLaunchKernel, PFN_cuLaunchKernel_v4000)
CHECK(cuMemAlloc_v2, PFN_cuMemAlloc_v3020)
CHECK(cuMemFree_v2, PFN_cuMemFree_v3020)
CHECK(cuMemcpyHtoD_v2, PFN_cuMemcpyHtoD_v3020)
CHECK(cuMemcpyDtoH_v2, PFN_cuMemcpyDtoH_v3020)
CHECK(cuMemcpyDtoD_v2, PFN_cuMemcpyDtoD_v3020)
CHECK(cuMemsetD8_v2, PFN_cuMemsetD8_v3020)
CHECK(cuMemsetD32_v2, PFN_cuMemsetD32_v3020)
CHECK(cuEventCreate, PFN_cuEventCreate_v2000)
CHECK(cuEventRecord, PFN_cuEventRecord_v2000)
CHECK(cuEventSynchronize, PFN_cuEventSynchronize_v2000)
CHECK(cuEventElapsedTime_v2, PFN_cuEventElapsedTime_v12080)
CHECK(cuEventDestroy_v2, PFN_cuEventDestroy_v4000)
CHECK(cuStreamCreate, PFN_cuStreamCreate_v2000)
CHECK(cuStreamSynchronize, PFN_cuStreamSynchronize_v2000)
CHECK(cuStreamDestroy_v2, PFN_cuStreamDestroy_v4000)
CHECK(cuGetErrorString, PFN_cuGetErrorString_v6000)
CHECK(cuGetErrorName, PFN_cuGetErrorName_v6000)
#endif
