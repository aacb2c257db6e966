/* The emulated device (an H100-like sm_90 with driver 13.0), result names, and cuGetProcAddress
 * over every entry point the library exports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"

EMU_EXPORT CUresult CUDAAPI cuInit(unsigned int Flags) {
  CUresult rc = emu_enter_uninitialized("cuInit");
  if (!rc && Flags != 0) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) emu_set_initialized();
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion) {
  CUresult rc = emu_enter_uninitialized("cuDriverGetVersion");
  if (!rc && !driverVersion) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) *driverVersion = 13000;
  return emu_leave(rc);
}

/* Device calls: initialized, device 0, a non-NULL output. */
static CUresult device_call(const char *call, CUdevice dev, const void *out) {
  CUresult rc = emu_enter(EMU_FAULT_INIT, call);
  if (!rc && dev != 0) rc = CUDA_ERROR_INVALID_DEVICE;
  if (!rc && !out) rc = CUDA_ERROR_INVALID_VALUE;
  return rc;
}

EMU_EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  CUresult rc = device_call("cuDeviceGet", 0, device);
  if (!rc && ordinal != 0) rc = CUDA_ERROR_INVALID_DEVICE;
  if (!rc) *device = 0;
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count) {
  CUresult rc = device_call("cuDeviceGetCount", 0, count);
  if (!rc) *count = 1;
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
  CUresult rc = device_call("cuDeviceGetName", dev, name);
  if (!rc && len <= 0) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) snprintf(name, (size_t)len, "%s", "NVIDIA H100 (stenciljit PTX emulator)");
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  CUresult rc = device_call("cuDeviceTotalMem_v2", dev, bytes);
  if (!rc) *bytes = (size_t)EMU_DEVICE_MEMORY;
  return emu_leave(rc);
}

static const struct {
  CUdevice_attribute attr;
  int value;
} attributes[] = {
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, EMU_BLOCK_SHARED},
    {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 64 * 1024},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536},
    {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, EMU_SM_COUNT},
    {CU_DEVICE_ATTRIBUTE_INTEGRATED, 0},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0},
    {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 2619000},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 5120},
    {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, -1}, /* emu_l2_bytes() */
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, EMU_SM_THREADS},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, EMU_SM_SHARED},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, EMU_BLOCK_SHARED_OPTIN},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, EMU_SM_BLOCKS},
    {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, EMU_SHARED_RESERVED},
};

EMU_EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  CUresult rc = device_call("cuDeviceGetAttribute", dev, pi);
  size_t k = 0;
  while (k < sizeof attributes / sizeof *attributes && attributes[k].attr != attrib) k++;
  if (!rc && k == sizeof attributes / sizeof *attributes) {
    emu_set_error("cuDeviceGetAttribute: attribute %d is not known to the emulator", (int)attrib);
    rc = CUDA_ERROR_INVALID_VALUE;
  }
  if (!rc)
    *pi = attrib == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE ? (int)emu_l2_bytes() : attributes[k].value;
  /* another GPU's memory system, for the tile model's figures at its bandwidth (an H200:
   * 3201000 and 6144) */
  const char *e = attrib == CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE ? getenv("JIT_EMU_MEM_CLOCK_KHZ")
                  : attrib == CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
                      ? getenv("JIT_EMU_BUS_BITS")
                      : NULL;
  if (!rc && e && atoi(e) > 0) *pi = atoi(e);
  return emu_leave(rc);
}

/* ---------- results ---------- */

static const struct {
  CUresult code;
  const char *name;
} results[] = {
#define RESULT(name, value) {name, #name},
    SJ_CU_RESULT_LIST(RESULT)
#undef RESULT
};

/* cuGetErrorString's texts, as the driver words them. */
static const char *result_text(CUresult rc) {
  switch (rc) {
  case CUDA_SUCCESS:
    return "no error";
  case CUDA_ERROR_INVALID_VALUE:
    return "invalid argument";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "initialization error";
  case CUDA_ERROR_DEINITIALIZED:
    return "driver shutting down";
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA driver is a stub library";
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable device is detected";
  case CUDA_ERROR_INVALID_DEVICE:
    return "invalid device ordinal";
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_SOURCE:
    return "device kernel image is invalid";
  case CUDA_ERROR_INVALID_CONTEXT:
    return "invalid device context";
  case CUDA_ERROR_INVALID_PTX:
    return "a PTX JIT compilation failed";
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return "the provided PTX was compiled with an unsupported toolchain.";
  case CUDA_ERROR_INVALID_HANDLE:
    return "invalid resource handle";
  case CUDA_ERROR_NOT_FOUND:
    return "named symbol not found";
  case CUDA_ERROR_NOT_READY:
    return "device not ready";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "an illegal memory access was encountered";
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return "too many resources requested for launch";
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return "the launch timed out and was terminated";
  case CUDA_ERROR_ASSERT:
    return "device-side assert triggered";
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
    return "hardware stack error";
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    return "an illegal instruction was encountered";
  case CUDA_ERROR_MISALIGNED_ADDRESS:
    return "misaligned address";
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    return "operation not supported on global/shared address space";
  case CUDA_ERROR_INVALID_PC:
    return "invalid program counter";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "unspecified launch failure";
  case CUDA_ERROR_NOT_SUPPORTED:
    return "operation not supported";
  case CUDA_ERROR_UNKNOWN:
    return "unknown error";
  }
  return NULL;
}

/* Neither takes the lock nor touches the thread's message: callers describe a failure with
 * them before they read emuGetLastErrorMessage. */
EMU_EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = result_text(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EMU_EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = NULL;
  for (size_t k = 0; k < sizeof results / sizeof *results; k++)
    if (results[k].code == error) *pStr = results[k].name;
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---------- cuGetProcAddress ---------- */

static const struct {
  const char *name;
  int version;
  void (*fn)(void);
} procs[] = {
#define PROC(symbol, name, version, params) {#name, version, (void (*)(void))symbol},
    SJ_CUDA_ENTRY_POINTS(PROC)
#undef PROC
};

/* The newest version of name that cudaVersion knows. Per-thread default-stream variants are
 * the same functions: every call is synchronous here. */
static CUresult proc_address(const char *symbol, void **pfn, int cudaVersion,
                             CUdriverProcAddressQueryResult *status) {
  if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
  int found = 0, best = -1;
  for (size_t k = 0; k < sizeof procs / sizeof *procs; k++) {
    if (strcmp(procs[k].name, symbol)) continue;
    found = 1;
    if (procs[k].version <= cudaVersion && (best < 0 || procs[k].version > procs[best].version))
      best = (int)k;
  }
  *pfn = NULL;
  if (best >= 0) memcpy(pfn, &procs[best].fn, sizeof *pfn);
  if (status)
    *status = best >= 0 ? CU_GET_PROC_ADDRESS_SUCCESS
              : found   ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                        : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return best >= 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

EMU_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                             cuuint64_t flags) {
  (void)flags;
  return proc_address(symbol, pfn, cudaVersion, NULL);
}

EMU_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                                cuuint64_t flags,
                                                CUdriverProcAddressQueryResult *symbolStatus) {
  (void)flags;
  return proc_address(symbol, pfn, cudaVersion, symbolStatus);
}
