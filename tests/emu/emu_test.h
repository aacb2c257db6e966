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
#include "base/cuda_abi.h"
#include "base/file.h"

/* Every entry point of base/cuda_abi.h, and the emulator's own. */
#define API_FIELD(symbol, name, version, params) sj_cu_pfn_##symbol symbol;
static struct {
  void *lib;
  SJ_CUDA_ENTRY_POINTS(API_FIELD) sj_cu_pfn_emuGetLastErrorMessage emuGetLastErrorMessage;
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
#define API_LOAD(symbol, name, version, params)                                                    \
  *(void **)&cu.symbol = dlsym(cu.lib, #symbol);                                                   \
  if (!cu.symbol) {                                                                                \
    fprintf(stderr, "missing symbol %s\n", #symbol);                                               \
    exit(1);                                                                                       \
  }
  SJ_CUDA_ENTRY_POINTS(API_LOAD)
  API_LOAD(emuGetLastErrorMessage, emuGetLastErrorMessage, 0, (void))
}

__attribute__((unused)) static char *read_file(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *s = sj_read_file(path, NULL);
  if (!s) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
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
