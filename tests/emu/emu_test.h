/* Test helpers: load the emulator with dlopen, as the driver layer does, and resolve the
 * driver API by its _v2 symbol names. */
#ifndef EMU_TEST_H
#define EMU_TEST_H

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_types.h"

#define API(X)                                                                                     \
  X(CUresult, cuInit, (unsigned))                                                                  \
  X(CUresult, cuDriverGetVersion, (int *))                                                         \
  X(CUresult, cuDeviceGet, (CUdevice *, int))                                                      \
  X(CUresult, cuDeviceGetCount, (int *))                                                           \
  X(CUresult, cuDeviceGetAttribute, (int *, CUdevice_attribute, CUdevice))                         \
  X(CUresult, cuDeviceGetName, (char *, int, CUdevice))                                            \
  X(CUresult, cuDeviceTotalMem_v2, (size_t *, CUdevice))                                           \
  X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))                                   \
  X(CUresult, cuDevicePrimaryCtxRelease_v2, (CUdevice))                                            \
  X(CUresult, cuCtxCreate_v2, (CUcontext *, unsigned, CUdevice))                                   \
  X(CUresult, cuCtxDestroy_v2, (CUcontext))                                                        \
  X(CUresult, cuCtxSetCurrent, (CUcontext))                                                        \
  X(CUresult, cuCtxGetCurrent, (CUcontext *))                                                      \
  X(CUresult, cuCtxSynchronize, (void))                                                            \
  X(CUresult, cuModuleLoadData, (CUmodule *, const void *))                                        \
  X(CUresult, cuModuleLoadDataEx, (CUmodule *, const void *, unsigned, CUjit_option *, void **))   \
  X(CUresult, cuModuleUnload, (CUmodule))                                                          \
  X(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))                         \
  X(CUresult, cuModuleGetGlobal_v2, (CUdeviceptr *, size_t *, CUmodule, const char *))             \
  X(CUresult, cuFuncGetAttribute, (int *, CUfunction_attribute, CUfunction))                       \
  X(CUresult, cuFuncSetAttribute, (CUfunction, CUfunction_attribute, int))                         \
  X(CUresult, cuLaunchKernel,                                                                      \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,   \
     void **, void **))                                                                            \
  X(CUresult, cuMemAlloc_v2, (CUdeviceptr *, size_t))                                              \
  X(CUresult, cuMemFree_v2, (CUdeviceptr))                                                         \
  X(CUresult, cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t))                                \
  X(CUresult, cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t))                                      \
  X(CUresult, cuMemcpyDtoD_v2, (CUdeviceptr, CUdeviceptr, size_t))                                 \
  X(CUresult, cuMemsetD8_v2, (CUdeviceptr, unsigned char, size_t))                                 \
  X(CUresult, cuMemsetD32_v2, (CUdeviceptr, unsigned, size_t))                                     \
  X(CUresult, cuEventCreate, (CUevent *, unsigned))                                                \
  X(CUresult, cuEventRecord, (CUevent, CUstream))                                                  \
  X(CUresult, cuEventSynchronize, (CUevent))                                                       \
  X(CUresult, cuEventElapsedTime_v2, (float *, CUevent, CUevent))                                  \
  X(CUresult, cuEventDestroy_v2, (CUevent))                                                        \
  X(CUresult, cuStreamCreate, (CUstream *, unsigned))                                              \
  X(CUresult, cuStreamSynchronize, (CUstream))                                                     \
  X(CUresult, cuStreamDestroy_v2, (CUstream))                                                      \
  X(CUresult, cuGetErrorString, (CUresult, const char **))                                         \
  X(CUresult, cuGetErrorName, (CUresult, const char **))                                           \
  X(const char *, emuGetLastErrorMessage, (void))

#define API_FIELD(ret, name, args) ret(*name) args;
static struct {
  void *lib;
  API(API_FIELD)
} cu;

static int t_failures;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
      t_failures++;                                                                                \
    }                                                                                              \
  } while (0)
#define CU(call)                                                                                   \
  do {                                                                                             \
    CUresult rc_ = (call);                                                                         \
    if (rc_ != CUDA_SUCCESS) {                                                                     \
      fprintf(stderr, "%s:%d: %s failed with %d: %s\n", __FILE__, __LINE__, #call, (int)rc_,       \
              cu.emuGetLastErrorMessage());                                                        \
      t_failures++;                                                                                \
    }                                                                                              \
  } while (0)

__attribute__((unused)) static void load_api(const char *path) {
  cu.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!cu.lib) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    exit(1);
  }
#define API_LOAD(ret, name, args)                                                                  \
  *(void **)&cu.name = dlsym(cu.lib, #name);                                                       \
  if (!cu.name) {                                                                                  \
    fprintf(stderr, "missing symbol %s\n", #name);                                                 \
    exit(1);                                                                                       \
  }
  API(API_LOAD)
}

__attribute__((unused)) static char *read_file(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (!s || fread(s, 1, (size_t)n, f) != (size_t)n) exit(1);
  s[n] = 0;
  fclose(f);
  return s;
}

/* Loads PTX with error and info logs; returns the result and fills log. */
__attribute__((unused)) static CUresult load_ptx(CUmodule *m, const char *ptx, char *log,
                                                 size_t loglen) {
  char info[2048];
  CUjit_option opt[5] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_WALL_TIME};
  void *val[5] = {log, (void *)(uintptr_t)loglen, info, (void *)(uintptr_t)sizeof info, NULL};
  log[0] = 0;
  return cu.cuModuleLoadDataEx(m, ptx, 5, opt, val);
}

__attribute__((unused)) static void setup(const char *lib, CUcontext *ctx) {
  load_api(lib);
  if (cu.cuInit(0) || cu.cuCtxCreate_v2(ctx, 0, 0)) {
    fprintf(stderr, "cannot create a context\n");
    exit(1);
  }
}

__attribute__((unused)) static int finish(const char *name) {
  if (t_failures)
    fprintf(stderr, "%s: %d check(s) failed\n", name, t_failures);
  else
    printf("%s: all checks passed\n", name);
  dlclose(cu.lib);
  return t_failures ? 1 : 0;
}

#endif
