/* cuLaunchKernel: the launch is checked against the device's and the kernel's limits, its
 * parameters gathered, and the grid run to completion before the call returns. A launch that
 * fails leaves the context in a sticky error state (out of host memory aside). */
#include <stdlib.h>
#include <string.h>
#include "api.h"

static CUresult check_shape(const emu_func *f, const unsigned grid[3], const unsigned block[3],
                            unsigned shared) {
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
  if (f->shared_static > EMU_BLOCK_SHARED || shared > (unsigned)f->max_dyn_shared) {
    emu_set_error("kernel '%s': %u bytes of static and %u bytes of dynamic shared memory exceed "
                  "the kernel's limit (%d bytes of dynamic shared memory: 48 KiB less the static, "
                  "or up to 227 KiB in all with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                  f->name, f->shared_static, shared, f->max_dyn_shared);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* The parameter buffer from kernelParams or from extra's buffer. */
static CUresult gather_params(const emu_func *f, void **kernelParams, void **extra,
                              uint8_t *params) {
  if (kernelParams && extra) return CUDA_ERROR_INVALID_VALUE;
  if (kernelParams) {
    for (int k = 0; k < f->nparams; k++) {
      if (!kernelParams[k]) {
        emu_set_error("kernel '%s': kernelParams[%d] is NULL", f->name, k);
        return CUDA_ERROR_INVALID_VALUE;
      }
      memcpy(params + f->params[k].offset, kernelParams[k], f->params[k].size);
    }
    return CUDA_SUCCESS;
  }
  if (extra) {
    void *buf = NULL;
    size_t size = 0;
    int have_size = 0;
    for (int k = 0; extra[k] != CU_LAUNCH_PARAM_END; k += 2) {
      if (extra[k] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        buf = extra[k + 1];
      else if (extra[k] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (extra[k + 1]) size = *(size_t *)extra[k + 1], have_size = 1;
      } else
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!buf || !have_size || size < f->param_size) {
      emu_set_error("kernel '%s': extra parameter buffer missing or smaller than %u bytes", f->name,
                    f->param_size);
      return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(params, buf, f->param_size);
    return CUDA_SUCCESS;
  }
  if (f->nparams) {
    emu_set_error("kernel '%s': no kernel parameters given", f->name);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult launch(emu_func *f, const unsigned grid[3], const unsigned block[3],
                       unsigned shared, void **kernelParams, void **extra) {
  CUresult rc = check_shape(f, grid, block, shared);
  if (rc) return rc;
  uint8_t *params = calloc(1, f->param_size ? f->param_size : 1);
  if (!params) return CUDA_ERROR_OUT_OF_MEMORY;
  rc = gather_params(f, kernelParams, extra, params);
  if (rc) {
    free(params);
    return rc;
  }
  const char *path = getenv("JIT_EMU_STATS"), *profile = getenv("JIT_EMU_PROFILE");
  emu_stats st;
  emu_stats_init(&st, path && *path);
  if (profile && *profile) {
    st.by_insn = calloc((size_t)f->ncode + 1, sizeof *st.by_insn);
    if (!st.by_insn) abort();
  }
  emu_launch L;
  memset(&L, 0, sizeof L);
  L.fn = f;
  memcpy(L.grid, grid, sizeof L.grid);
  memcpy(L.block, block, sizeof L.block);
  L.dyn_shared = shared;
  L.params = params;
  L.st = &st;
  rc = emu_execute(&L);
  if (path && *path) emu_stats_write(&st, path, f->name, grid, block);
  if (st.by_insn) emu_stats_write_profile(&st, profile, f);
  emu_stats_free(&st);
  free(params);
  if (rc) {
    emu_set_error("%s", L.msg);
    if (rc != CUDA_ERROR_OUT_OF_MEMORY) emu_current()->sticky = rc;
  }
  return rc;
}

EMU_EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                                           unsigned int gridDimY, unsigned int gridDimZ,
                                           unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes,
                                           CUstream hStream, void **kernelParams, void **extra) {
  CUresult rc = emu_enter(EMU_FAULT_LAUNCH, "cuLaunchKernel");
  if (!rc && (!emu_func_valid(f) || !emu_stream_valid(hStream))) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    unsigned g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    rc = launch(f->f, g, b, sharedMemBytes, kernelParams, extra);
  }
  return emu_leave(rc);
}
