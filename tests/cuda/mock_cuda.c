/* A scripted stand-in for libcuda: enough of the driver API for host/cuda.c, with the
 * answers chosen by environment variables read at each call, so one test process can try
 * many drivers and devices. It runs one kernel, "vecadd", natively. It exports only the
 * unversioned cuDevicePrimaryCtxRelease (as drivers before CUDA 11 did) to exercise the
 * fallback, and it insists on a current context on the calling thread, as libcuda does.
 *
 *   MOCK_CUDA_DRIVER=13000   cuDriverGetVersion
 *   MOCK_CUDA_CC=90          compute capability major*10+minor
 *   MOCK_CUDA_COUNT=1        cuDeviceGetCount
 *   MOCK_CUDA_INIT=100       cuInit's result
 *   MOCK_CUDA_OOM=1          cuMemAlloc_v2 fails with CUDA_ERROR_OUT_OF_MEMORY
 *   MOCK_CUDA_LAUNCH=n       cuLaunchKernel's result
 *   MOCK_CUDA_FUNC_MAXT=n    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
 *
 * Its linker (cuLinkCreate_v2 ...) makes a "cubin" of the PTX text behind a marker. A module
 * has the functions its text declares with .entry; only vecadd runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cuda_abi.h"

/* The mock's handles: a context, a module per load, one function. */
struct CUctx_st {
  int token;
};
struct CUmod_st {
  char *text; /* to find its entries by name */
};
struct CUfunc_st {
  int token;
};

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

/* Observed by the tests through dlsym on the same handle. */
int mock_retained, mock_launches, mock_links, mock_cubin_loads;
static const char cubin_marker[] = "MOCK CUBIN\n";
static struct CUctx_st ctx_token;
static __thread CUcontext current;

#define NEED_CTX                                                                                   \
  if (current != &ctx_token) return CUDA_ERROR_INVALID_CONTEXT

static const struct {
  CUresult code;
  const char *name, *text;
} results[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

static int result_index(CUresult r) {
  for (size_t i = 0; i < sizeof results / sizeof *results; i++)
    if (results[i].code == r) return (int)i;
  return -1;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
  int i = result_index(r);
  *s = i < 0 ? NULL : results[i].name;
  return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  int i = result_index(r);
  *s = i < 0 ? NULL : results[i].text;
  return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags) {
  return flags ? CUDA_ERROR_INVALID_VALUE : (CUresult)env_int("MOCK_CUDA_INIT", 0);
}

CUresult cuDriverGetVersion(int *v) {
  *v = env_int("MOCK_CUDA_DRIVER", 13000);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n) {
  *n = env_int("MOCK_CUDA_COUNT", 1);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  *d = ordinal;
  return ordinal < env_int("MOCK_CUDA_COUNT", 1) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  (void)dev;
  snprintf(name, (size_t)len, "Mock GPU");
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  (void)dev;
  *bytes = (size_t)1 << 30;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice dev) {
  (void)dev;
  int cc = env_int("MOCK_CUDA_CC", 90);
  const struct {
    CUdevice_attribute attr;
    int value;
  } fixed[] = {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cc / 10},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cc % 10},
  };
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    if (fixed[i].attr == attr) {
      *v = fixed[i].value;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  (void)dev;
  mock_retained++;
  *ctx = &ctx_token;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  (void)dev;
  mock_retained--;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
  NEED_CTX;
  return CUDA_SUCCESS;
}

static struct CUfunc_st vecadd_token;

CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int n, CUjit_option *opt,
                            void **val) {
  NEED_CTX;
  char *errlog = NULL, *infolog = NULL;
  int errsize = -1, infosize = -1; /* indices of the in/out size values */
  for (unsigned i = 0; i < n; i++) {
    if (opt[i] == CU_JIT_INFO_LOG_BUFFER) infolog = val[i];
    if (opt[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES) infosize = (int)i;
    if (opt[i] == CU_JIT_ERROR_LOG_BUFFER) errlog = val[i];
    if (opt[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) errsize = (int)i;
  }
  if (infolog && infosize >= 0 && (uintptr_t)val[infosize] > 16)
    val[infosize] = (void *)(uintptr_t)(snprintf(infolog, 16, "mock: info\n") + 1);
  if (strstr(image, "mock_bad")) {
    const char *log = "mock ptx input, line 3; error: mock_bad\n\n";
    if (errlog && errsize >= 0 && (uintptr_t)val[errsize] > strlen(log)) {
      strcpy(errlog, log);
      val[errsize] = (void *)(uintptr_t)(strlen(log) + 1);
    }
    return CUDA_ERROR_INVALID_PTX;
  }
  mock_cubin_loads += !strncmp(image, cubin_marker, sizeof cubin_marker - 1);
  *mod = malloc(sizeof **mod);
  (*mod)->text = strdup(image);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule mod) {
  free(mod->text);
  free(mod);
  return CUDA_SUCCESS;
}

static struct CUfunc_st other_token;

/* vecadd runs natively; any other kernel the module declares resolves but does not run. */
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name) {
  char entry[300];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  if (!strcmp(name, "vecadd"))
    *f = &vecadd_token;
  else if (strstr(mod->text, entry))
    *f = &other_token;
  else
    return CUDA_ERROR_NOT_FOUND;
  return CUDA_SUCCESS;
}

/* The linker makes a "cubin" of the PTX text behind a marker. */
struct CUlinkState_st {
  char *image;
};

CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *opt, void **val, CUlinkState *state) {
  (void)n, (void)opt, (void)val;
  NEED_CTX;
  *state = calloc(1, sizeof **state);
  return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState l, CUjitInputType type, void *data, size_t size,
                          const char *name, unsigned int n, CUjit_option *opt, void **val) {
  (void)name, (void)n, (void)opt, (void)val;
  if (type != CU_JIT_INPUT_PTX || l->image || !size) return CUDA_ERROR_INVALID_VALUE;
  l->image = malloc(sizeof cubin_marker + size);
  memcpy(l->image, cubin_marker, sizeof cubin_marker - 1);
  memcpy(l->image + sizeof cubin_marker - 1, data, size);
  l->image[sizeof cubin_marker - 1 + size] = 0;
  return CUDA_SUCCESS;
}

CUresult cuLinkComplete(CUlinkState l, void **cubin, size_t *size) {
  if (!l->image) return CUDA_ERROR_INVALID_VALUE;
  mock_links++;
  *cubin = l->image;
  *size = strlen(l->image) + 1;
  return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState l) {
  free(l->image);
  free(l);
  return CUDA_SUCCESS;
}

/* vecadd's dynamic shared memory limit: 48 KB until the kernel opts in to more */
static int max_dynamic_shared = 49152;

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute attr, CUfunction f) {
  (void)f;
  if (attr == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    *v = env_int("MOCK_CUDA_FUNC_MAXT", 1024);
  else if (attr == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
    *v = 0;
  else if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    *v = max_dynamic_shared;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value) {
  (void)f;
  if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 || value > 232448)
    return CUDA_ERROR_INVALID_VALUE;
  max_dynamic_shared = value;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  NEED_CTX;
  if (env_int("MOCK_CUDA_OOM", 0)) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (uintptr_t)malloc(bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  NEED_CTX;
  free((void *)(uintptr_t)p);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  NEED_CTX;
  memcpy((void *)(uintptr_t)dst, src, n);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  NEED_CTX;
  memcpy(dst, (void *)(uintptr_t)src, n);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        CUstream stream, void **params, void **extra) {
  NEED_CTX;
  (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)stream;
  if (f != &vecadd_token || extra) return CUDA_ERROR_INVALID_VALUE;
  mock_launches++;
  int r = env_int("MOCK_CUDA_LAUNCH", 0);
  if (r) return (CUresult)r;
  const float *a = *(float **)params[0], *b = *(float **)params[1];
  float *c = *(float **)params[2];
  int n = *(int *)params[3];
  for (unsigned i = 0; i < gx * bx; i++)
    if ((int)i < n) c[i] = a[i] + b[i];
  return CUDA_SUCCESS;
}

/* Events record the host clock. Only the original cuEventElapsedTime, as drivers before CUDA
 * 12.8 export it. */
struct CUevent_st {
  double ms;
};

CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  NEED_CTX;
  (void)flags;
  *e = calloc(1, sizeof **e);
  return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuEventRecord(CUevent e, CUstream stream) {
  NEED_CTX;
  (void)stream;
  e->ms = (double)clock() * 1e3 / CLOCKS_PER_SEC;
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent e) {
  NEED_CTX;
  (void)e;
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  NEED_CTX;
  *ms = (float)(end->ms - start->ms);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent e) {
  free(e);
  return CUDA_SUCCESS;
}
