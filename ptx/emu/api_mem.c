/* Device memory: allocations owned by the current context, copies and memsets. A range must lie
 * inside one allocation. */
#include <stdlib.h>
#include <string.h>
#include "api.h"

EMU_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  CUresult rc = emu_enter(EMU_FAULT_ALLOC, "cuMemAlloc_v2");
  if (!rc && (!dptr || !bytesize)) rc = CUDA_ERROR_INVALID_VALUE;
  uint64_t d = 0;
  if (!rc) rc = emu_mem_alloc_owned(bytesize, &d, emu_current());
  /* a GPU's memory is not cleared between allocations (a module's variables are): all-ones
   * bits (NaN, -1) make a read of what nothing wrote show */
  if (!rc) memset(emu_mem_host(d, bytesize), 0xff, bytesize);
  if (!rc) *dptr = d;
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
  CUresult rc = emu_enter(EMU_FAULT_FREE, "cuMemFree_v2");
  if (!rc && dptr)
    rc = emu_mem_owned_by(dptr, emu_current()) ? emu_mem_free(dptr) : CUDA_ERROR_INVALID_VALUE;
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuMemGetInfo_v2(size_t *free, size_t *total) {
  CUresult rc = emu_enter(EMU_FAULT_NONE, "cuMemGetInfo_v2");
  if (!rc && (!free || !total)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) {
    uint64_t used = emu_mem_used();
    *total = (size_t)EMU_DEVICE_MEMORY;
    *free = used < EMU_DEVICE_MEMORY ? (size_t)(EMU_DEVICE_MEMORY - used) : 0;
  }
  return emu_leave(rc);
}

/* The host copy of [dev, dev + n), or NULL with a message naming call. */
static void *range(const char *call, uint64_t dev, size_t n) {
  void *h = emu_mem_host(dev, n);
  if (!h)
    emu_set_error("%s: device range [0x%llx, +%zu) is not inside one allocation", call,
                  (unsigned long long)dev, n);
  return h;
}

enum { DST_DEVICE = 1, SRC_DEVICE = 2 };

/* A copy; where says which sides are device addresses (ddev, sdev) rather than host pointers. */
static CUresult copy(int kind, const char *call, int where, void *dst, CUdeviceptr ddev,
                     const void *src, CUdeviceptr sdev, size_t n) {
  CUresult rc = emu_enter(kind, call);
  if (!rc && n) {
    if (where & DST_DEVICE) dst = range(call, ddev, n);
    if (dst && (where & SRC_DEVICE)) src = range(call, sdev, n);
    if (!dst || !src)
      rc = CUDA_ERROR_INVALID_VALUE;
    else
      memmove(dst, src, n);
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
                                            size_t ByteCount) {
  return copy(EMU_FAULT_HTOD, "cuMemcpyHtoD_v2", DST_DEVICE, NULL, dstDevice, srcHost, 0,
              ByteCount);
}

EMU_EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
                                            size_t ByteCount) {
  return copy(EMU_FAULT_DTOH, "cuMemcpyDtoH_v2", SRC_DEVICE, dstHost, 0, NULL, srcDevice,
              ByteCount);
}

EMU_EXPORT CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                            size_t ByteCount) {
  return copy(EMU_FAULT_DTOD, "cuMemcpyDtoD_v2", DST_DEVICE | SRC_DEVICE, NULL, dstDevice, NULL,
              srcDevice, ByteCount);
}

EMU_EXPORT CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  CUresult rc = emu_enter(EMU_FAULT_MEMSET, "cuMemsetD8_v2");
  void *d = rc || !N ? NULL : range("cuMemsetD8_v2", dstDevice, N);
  if (!rc && N && !d) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc && N) memset(d, uc, N);
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  CUresult rc = emu_enter(EMU_FAULT_MEMSET, "cuMemsetD32_v2");
  uint8_t *d = rc || !N || N > SIZE_MAX / 4 ? NULL : range("cuMemsetD32_v2", dstDevice, N * 4);
  if (!rc && N && (!d || dstDevice % 4)) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc)
    for (size_t k = 0; k < N; k++) memcpy(d + 4 * k, &ui, 4);
  return emu_leave(rc);
}
