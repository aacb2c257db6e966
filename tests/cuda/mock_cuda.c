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
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

typedef int CUresult;

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

/* Observed by the tests through dlsym on the same handle. */
int mock_retained, mock_launches, mock_links, mock_cubin_loads;
static const char cubin_marker[] = "MOCK CUBIN\n";
static int ctx_token;
static __thread void *current;

#define NEED_CTX                                                                                   \
  if (current != &ctx_token) return 201 /* CUDA_ERROR_INVALID_CONTEXT */

static const struct {
  int code;
  const char *name, *text;
} results[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

static int result_index(CUresult r) {
  for (size_t i = 0; i < sizeof results / sizeof *results; i++)
    if (results[i].code == r) return (int)i;
  return -1;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
  int i = result_index(r);
  *s = i < 0 ? NULL : results[i].name;
  return i < 0 ? 1 : 0;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  int i = result_index(r);
  *s = i < 0 ? NULL : results[i].text;
  return i < 0 ? 1 : 0;
}

CUresult cuInit(unsigned flags) {
  return flags ? 1 : env_int("MOCK_CUDA_INIT", 0);
}

CUresult cuDriverGetVersion(int *v) {
  *v = env_int("MOCK_CUDA_DRIVER", 13000);
  return 0;
}

CUresult cuDeviceGetCount(int *n) {
  *n = env_int("MOCK_CUDA_COUNT", 1);
  return 0;
}

CUresult cuDeviceGet(int *d, int ordinal) {
  *d = ordinal;
  return ordinal < env_int("MOCK_CUDA_COUNT", 1) ? 0 : 101;
}

CUresult cuDeviceGetName(char *name, int len, int dev) {
  (void)dev;
  snprintf(name, (size_t)len, "Mock GPU");
  return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev) {
  (void)dev;
  *bytes = (size_t)1 << 30;
  return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
  (void)dev;
  int cc = env_int("MOCK_CUDA_CC", 90);
  switch (attr) {
  case 75:
    *v = cc / 10;
    return 0;
  case 76:
    *v = cc % 10;
    return 0;
  case 1:
  case 2:
  case 3:
    *v = 1024;
    return 0;
  case 4:
    *v = 64;
    return 0;
  case 5:
    *v = 2147483647;
    return 0;
  case 6:
  case 7:
    *v = 65535;
    return 0;
  case 8:
    *v = 49152;
    return 0;
  case 97:
    *v = 232448;
    return 0;
  case 12:
    *v = 65536;
    return 0;
  case 10:
    *v = 32;
    return 0;
  case 16:
    *v = 132;
    return 0;
  }
  return 1;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  (void)dev;
  mock_retained++;
  *ctx = &ctx_token;
  return 0;
}

CUresult cuDevicePrimaryCtxRelease(int dev) {
  (void)dev;
  mock_retained--;
  return 0;
}

CUresult cuCtxSetCurrent(void *ctx) {
  current = ctx;
  return 0;
}

CUresult cuCtxSynchronize(void) {
  NEED_CTX;
  return 0;
}

static int vecadd_token;

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opt, void **val) {
  NEED_CTX;
  char *errlog = NULL, *infolog = NULL;
  int errsize = -1, infosize = -1; /* indices of the in/out size values */
  for (unsigned i = 0; i < n; i++) {
    if (opt[i] == 3) infolog = val[i];
    if (opt[i] == 4) infosize = (int)i;
    if (opt[i] == 5) errlog = val[i];
    if (opt[i] == 6) errsize = (int)i;
  }
  if (infolog && infosize >= 0 && (uintptr_t)val[infosize] > 16)
    val[infosize] = (void *)(uintptr_t)(snprintf(infolog, 16, "mock: info\n") + 1);
  if (strstr(image, "mock_bad")) {
    const char *log = "mock ptx input, line 3; error: mock_bad\n\n";
    if (errlog && errsize >= 0 && (uintptr_t)val[errsize] > strlen(log)) {
      strcpy(errlog, log);
      val[errsize] = (void *)(uintptr_t)(strlen(log) + 1);
    }
    return 218;
  }
  mock_cubin_loads += !strncmp(image, cubin_marker, sizeof cubin_marker - 1);
  *mod = strdup(image); /* the text, to find its entries by name */
  return 0;
}

CUresult cuModuleUnload(void *mod) {
  free(mod);
  return 0;
}

static int other_token;

/* vecadd runs natively; any other kernel the module declares resolves but does not run. */
CUresult cuModuleGetFunction(void **f, void *mod, const char *name) {
  char entry[300];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  if (!strcmp(name, "vecadd"))
    *f = &vecadd_token;
  else if (strstr(mod, entry))
    *f = &other_token;
  else
    return 500;
  return 0;
}

typedef struct link_state {
  char *image;
} link_state;

CUresult cuLinkCreate_v2(unsigned n, int *opt, void **val, void **state) {
  (void)n, (void)opt, (void)val;
  NEED_CTX;
  *state = calloc(1, sizeof(link_state));
  return 0;
}

CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name,
                          unsigned n, int *opt, void **val) {
  (void)name, (void)n, (void)opt, (void)val;
  link_state *l = state;
  if (type != 1 /* CU_JIT_INPUT_PTX */ || l->image || !size) return 1;
  l->image = malloc(sizeof cubin_marker + size);
  memcpy(l->image, cubin_marker, sizeof cubin_marker - 1);
  memcpy(l->image + sizeof cubin_marker - 1, data, size);
  l->image[sizeof cubin_marker - 1 + size] = 0;
  return 0;
}

CUresult cuLinkComplete(void *state, void **cubin, size_t *size) {
  link_state *l = state;
  if (!l->image) return 1;
  mock_links++;
  *cubin = l->image;
  *size = strlen(l->image) + 1;
  return 0;
}

CUresult cuLinkDestroy(void *state) {
  link_state *l = state;
  free(l->image);
  free(l);
  return 0;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  (void)f;
  if (attr == 0)
    *v = env_int("MOCK_CUDA_FUNC_MAXT", 1024);
  else if (attr == 1)
    *v = 0;
  else
    return 1;
  return 0;
}

CUresult cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
  NEED_CTX;
  if (env_int("MOCK_CUDA_OOM", 0)) return 2;
  *p = (uintptr_t)malloc(bytes);
  return 0;
}

CUresult cuMemFree_v2(unsigned long long p) {
  NEED_CTX;
  free((void *)(uintptr_t)p);
  return 0;
}

CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  NEED_CTX;
  memcpy((void *)(uintptr_t)dst, src, n);
  return 0;
}

CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  NEED_CTX;
  memcpy(dst, (void *)(uintptr_t)src, n);
  return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  NEED_CTX;
  (void)gy, (void)gz, (void)by, (void)bz, (void)shared, (void)stream;
  if (f != &vecadd_token || extra) return 1;
  mock_launches++;
  int r = env_int("MOCK_CUDA_LAUNCH", 0);
  if (r) return r;
  const float *a = *(float **)params[0], *b = *(float **)params[1];
  float *c = *(float **)params[2];
  int n = *(int *)params[3];
  for (unsigned i = 0; i < gx * bx; i++)
    if ((int)i < n) c[i] = a[i] + b[i];
  return 0;
}
