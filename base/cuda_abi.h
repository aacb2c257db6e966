/* The CUDA driver API as stenciljit uses it, declared once: the driver layer (host/cuda.c), the
 * PTX emulator (ptx/emu, a drop-in libcuda), the tests and the benchmarks all take the entry
 * points, types and constants from here, so the project builds without the CUDA toolkit.
 *
 * Everything has cuda.h's ABI: the entry points carry cuda.h's signatures under the symbol names
 * cuda.h maps them to (cuMemAlloc is cuMemAlloc_v2), and every constant has cuda.h's value. When
 * the toolkit is installed, tests/cuda/cuda_abi_check.c includes this header after cuda.h (with
 * SJ_CUDA_ABI_CHECK defined) and the build fails on any difference: typedefs are redefined (a
 * different type is an error), each entry point is redeclared and assigned to cudaTypedefs.h's
 * pointer type of its version, and each constant is compared with cuda.h's.
 *
 * Nothing here depends on the rest of stenciljit. */
#ifndef SJ_CUDA_ABI_H
#define SJ_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifndef CUDAAPI
#define CUDAAPI
#endif

/* ---- constants: X(name, value) ---- */

#define SJ_CU_RESULT_LIST(X)                                                                       \
  X(CUDA_SUCCESS, 0)                                                                               \
  X(CUDA_ERROR_INVALID_VALUE, 1)                                                                   \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                                                   \
  X(CUDA_ERROR_NOT_INITIALIZED, 3)                                                                 \
  X(CUDA_ERROR_DEINITIALIZED, 4)                                                                   \
  X(CUDA_ERROR_STUB_LIBRARY, 34)                                                                   \
  X(CUDA_ERROR_NO_DEVICE, 100)                                                                     \
  X(CUDA_ERROR_INVALID_DEVICE, 101)                                                                \
  X(CUDA_ERROR_INVALID_IMAGE, 200)                                                                 \
  X(CUDA_ERROR_INVALID_CONTEXT, 201)                                                               \
  X(CUDA_ERROR_INVALID_PTX, 218)                                                                   \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)                                                       \
  X(CUDA_ERROR_INVALID_SOURCE, 300)                                                                \
  X(CUDA_ERROR_INVALID_HANDLE, 400)                                                                \
  X(CUDA_ERROR_NOT_FOUND, 500)                                                                     \
  X(CUDA_ERROR_NOT_READY, 600)                                                                     \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700)                                                               \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701)                                                       \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702)                                                                \
  X(CUDA_ERROR_ASSERT, 710)                                                                        \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714)                                                          \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715)                                                           \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                                            \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717)                                                         \
  X(CUDA_ERROR_INVALID_PC, 718)                                                                    \
  X(CUDA_ERROR_LAUNCH_FAILED, 719)                                                                 \
  X(CUDA_ERROR_NOT_SUPPORTED, 801)                                                                 \
  X(CUDA_ERROR_UNKNOWN, 999)

#define SJ_CU_DEVICE_ATTRIBUTE_LIST(X)                                                             \
  X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1)                                                  \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 2)                                                        \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 3)                                                        \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 4)                                                        \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 5)                                                         \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 6)                                                         \
  X(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 7)                                                         \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 8)                                            \
  X(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, 9)                                                  \
  X(CU_DEVICE_ATTRIBUTE_WARP_SIZE, 10)                                                             \
  X(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 12)                                               \
  X(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 13)                                                            \
  X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)                                                  \
  X(CU_DEVICE_ATTRIBUTE_INTEGRATED, 18)                                                            \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 20)                                                          \
  X(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 36)                                                     \
  X(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 37)                                               \
  X(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 38)                                                         \
  X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 39)                                        \
  X(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 41)                                                    \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                                              \
  X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)                                              \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 81)                                  \
  X(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 82)                                      \
  X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)                                     \
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 106)                                        \
  X(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 111)

#define SJ_CU_FUNCTION_ATTRIBUTE_LIST(X)                                                           \
  X(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)                                                    \
  X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)                                                        \
  X(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, 2)                                                         \
  X(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 3)                                                         \
  X(CU_FUNC_ATTRIBUTE_NUM_REGS, 4)                                                                 \
  X(CU_FUNC_ATTRIBUTE_PTX_VERSION, 5)                                                              \
  X(CU_FUNC_ATTRIBUTE_BINARY_VERSION, 6)                                                           \
  X(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, 7)                                                            \
  X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

#define SJ_CU_JIT_OPTION_LIST(X)                                                                   \
  X(CU_JIT_MAX_REGISTERS, 0)                                                                       \
  X(CU_JIT_THREADS_PER_BLOCK, 1)                                                                   \
  X(CU_JIT_WALL_TIME, 2)                                                                           \
  X(CU_JIT_INFO_LOG_BUFFER, 3)                                                                     \
  X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, 4)                                                          \
  X(CU_JIT_ERROR_LOG_BUFFER, 5)                                                                    \
  X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)                                                         \
  X(CU_JIT_OPTIMIZATION_LEVEL, 7)                                                                  \
  X(CU_JIT_TARGET_FROM_CUCONTEXT, 8)                                                               \
  X(CU_JIT_TARGET, 9)                                                                              \
  X(CU_JIT_FALLBACK_STRATEGY, 10)                                                                  \
  X(CU_JIT_GENERATE_DEBUG_INFO, 11)                                                                \
  X(CU_JIT_LOG_VERBOSE, 12)                                                                        \
  X(CU_JIT_GENERATE_LINE_INFO, 13)                                                                 \
  X(CU_JIT_CACHE_MODE, 14)

#define SJ_CU_JIT_INPUT_TYPE_LIST(X)                                                               \
  X(CU_JIT_INPUT_CUBIN, 0)                                                                         \
  X(CU_JIT_INPUT_PTX, 1)

#define SJ_CU_EVENT_FLAGS_LIST(X)                                                                  \
  X(CU_EVENT_DEFAULT, 0)                                                                           \
  X(CU_EVENT_BLOCKING_SYNC, 1)                                                                     \
  X(CU_EVENT_DISABLE_TIMING, 2)

#define SJ_CU_PROC_ADDRESS_LIST(X)                                                                 \
  X(CU_GET_PROC_ADDRESS_DEFAULT, 0)                                                                \
  X(CU_GET_PROC_ADDRESS_LEGACY_STREAM, 1)                                                          \
  X(CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, 2)

#define SJ_CU_PROC_ADDRESS_RESULT_LIST(X)                                                          \
  X(CU_GET_PROC_ADDRESS_SUCCESS, 0)                                                                \
  X(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, 1)                                                       \
  X(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, 2)

/* cuLaunchKernel's `extra` markers: pointers with these values. */
#define SJ_CU_LAUNCH_PARAM_LIST(X)                                                                 \
  X(CU_LAUNCH_PARAM_END_AS_INT, 0)                                                                 \
  X(CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, 1)                                                      \
  X(CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, 2)

/* ---- types (the check redefines each against cuda.h's) ---- */

#ifndef SJ_CUDA_ABI_CHECK
#define SJ_CU_ENUM_ITEM(name, value) name = value,
enum cudaError_enum { SJ_CU_RESULT_LIST(SJ_CU_ENUM_ITEM) };
enum CUdevice_attribute_enum { SJ_CU_DEVICE_ATTRIBUTE_LIST(SJ_CU_ENUM_ITEM) };
enum CUfunction_attribute_enum { SJ_CU_FUNCTION_ATTRIBUTE_LIST(SJ_CU_ENUM_ITEM) };
enum CUjit_option_enum { SJ_CU_JIT_OPTION_LIST(SJ_CU_ENUM_ITEM) };
enum CUjitInputType_enum { SJ_CU_JIT_INPUT_TYPE_LIST(SJ_CU_ENUM_ITEM) };
enum CUevent_flags_enum { SJ_CU_EVENT_FLAGS_LIST(SJ_CU_ENUM_ITEM) };
enum CUdriverProcAddress_flags_enum { SJ_CU_PROC_ADDRESS_LIST(SJ_CU_ENUM_ITEM) };
enum CUdriverProcAddressQueryResult_enum { SJ_CU_PROC_ADDRESS_RESULT_LIST(SJ_CU_ENUM_ITEM) };
enum { SJ_CU_LAUNCH_PARAM_LIST(SJ_CU_ENUM_ITEM) };
#undef SJ_CU_ENUM_ITEM
#define CU_LAUNCH_PARAM_END ((void *)(uintptr_t)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)(uintptr_t)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)(uintptr_t)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)
#endif

typedef enum cudaError_enum CUresult;
typedef enum CUdevice_attribute_enum CUdevice_attribute;
typedef enum CUfunction_attribute_enum CUfunction_attribute;
typedef enum CUjit_option_enum CUjit_option;
typedef enum CUjitInputType_enum CUjitInputType;
typedef enum CUevent_flags_enum CUevent_flags;
typedef enum CUdriverProcAddressQueryResult_enum CUdriverProcAddressQueryResult;
typedef uint64_t cuuint64_t;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlinkState_st *CUlinkState;
/* Only passed on (cuCtxCreate_v4 accepts NULL): its members are never used. */
typedef struct CUctxCreateParams_st CUctxCreateParams;

/* ---- entry points: X(symbol, name, version, parameters) ----
 * symbol: what a program built with cuda.h links to; name and version: how cuGetProcAddress
 * asks for it (the CUDA version that introduced this signature, as in cudaTypedefs.h's
 * PFN_<name>_v<version>). */
#define SJ_CUDA_ENTRY_POINTS(X)                                                                    \
  X(cuGetErrorString, cuGetErrorString, 6000, (CUresult error, const char **pStr))                 \
  X(cuGetErrorName, cuGetErrorName, 6000, (CUresult error, const char **pStr))                     \
  X(cuInit, cuInit, 2000, (unsigned int Flags))                                                    \
  X(cuDriverGetVersion, cuDriverGetVersion, 2020, (int *driverVersion))                            \
  X(cuDeviceGet, cuDeviceGet, 2000, (CUdevice * device, int ordinal))                              \
  X(cuDeviceGetCount, cuDeviceGetCount, 2000, (int *count))                                        \
  X(cuDeviceGetName, cuDeviceGetName, 2000, (char *name, int len, CUdevice dev))                   \
  X(cuDeviceTotalMem_v2, cuDeviceTotalMem, 3020, (size_t * bytes, CUdevice dev))                   \
  X(cuDeviceGetAttribute, cuDeviceGetAttribute, 2000,                                              \
    (int *pi, CUdevice_attribute attrib, CUdevice dev))                                            \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, 7000, (CUcontext * pctx, CUdevice dev))    \
  X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, 7000, (CUdevice dev))                    \
  X(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease, 11000, (CUdevice dev))                \
  X(cuCtxCreate_v2, cuCtxCreate, 3020, (CUcontext * pctx, unsigned int flags, CUdevice dev))       \
  X(cuCtxCreate_v4, cuCtxCreate, 12050,                                                            \
    (CUcontext * pctx, CUctxCreateParams * ctxCreateParams, unsigned int flags, CUdevice dev))     \
  X(cuCtxDestroy_v2, cuCtxDestroy, 4000, (CUcontext ctx))                                          \
  X(cuCtxSetCurrent, cuCtxSetCurrent, 4000, (CUcontext ctx))                                       \
  X(cuCtxGetCurrent, cuCtxGetCurrent, 4000, (CUcontext * pctx))                                    \
  X(cuCtxSynchronize, cuCtxSynchronize, 2000, (void))                                              \
  X(cuMemGetInfo_v2, cuMemGetInfo, 3020, (size_t * free, size_t * total))                          \
  X(cuMemAlloc_v2, cuMemAlloc, 3020, (CUdeviceptr * dptr, size_t bytesize))                        \
  X(cuMemFree_v2, cuMemFree, 3020, (CUdeviceptr dptr))                                             \
  X(cuMemcpyHtoD_v2, cuMemcpyHtoD, 3020,                                                           \
    (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount))                                \
  X(cuMemcpyDtoH_v2, cuMemcpyDtoH, 3020, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)) \
  X(cuMemcpyDtoD_v2, cuMemcpyDtoD, 3020,                                                           \
    (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount))                              \
  X(cuMemsetD8_v2, cuMemsetD8, 3020, (CUdeviceptr dstDevice, unsigned char uc, size_t N))          \
  X(cuMemsetD32_v2, cuMemsetD32, 3020, (CUdeviceptr dstDevice, unsigned int ui, size_t N))         \
  X(cuLinkCreate_v2, cuLinkCreate, 6050,                                                           \
    (unsigned int numOptions, CUjit_option *options, void **optionValues, CUlinkState *stateOut))  \
  X(cuLinkAddData_v2, cuLinkAddData, 6050,                                                         \
    (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,            \
     unsigned int numOptions, CUjit_option *options, void **optionValues))                         \
  X(cuLinkComplete, cuLinkComplete, 5050, (CUlinkState state, void **cubinOut, size_t *sizeOut))   \
  X(cuLinkDestroy, cuLinkDestroy, 5050, (CUlinkState state))                                       \
  X(cuModuleLoadData, cuModuleLoadData, 2000, (CUmodule * module, const void *image))              \
  X(cuModuleLoadDataEx, cuModuleLoadDataEx, 2010,                                                  \
    (CUmodule * module, const void *image, unsigned int numOptions, CUjit_option *options,         \
     void **optionValues))                                                                         \
  X(cuModuleUnload, cuModuleUnload, 2000, (CUmodule hmod))                                         \
  X(cuModuleGetFunction, cuModuleGetFunction, 2000,                                                \
    (CUfunction * hfunc, CUmodule hmod, const char *name))                                         \
  X(cuModuleGetGlobal_v2, cuModuleGetGlobal, 3020,                                                 \
    (CUdeviceptr * dptr, size_t * bytes, CUmodule hmod, const char *name))                         \
  X(cuFuncGetAttribute, cuFuncGetAttribute, 2020,                                                  \
    (int *pi, CUfunction_attribute attrib, CUfunction hfunc))                                      \
  X(cuFuncSetAttribute, cuFuncSetAttribute, 9000,                                                  \
    (CUfunction hfunc, CUfunction_attribute attrib, int value))                                    \
  X(cuLaunchKernel, cuLaunchKernel, 4000,                                                          \
    (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,            \
     unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                       \
     unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra))            \
  X(cuStreamCreate, cuStreamCreate, 2000, (CUstream * phStream, unsigned int Flags))               \
  X(cuStreamSynchronize, cuStreamSynchronize, 2000, (CUstream hStream))                            \
  X(cuStreamDestroy_v2, cuStreamDestroy, 4000, (CUstream hStream))                                 \
  X(cuEventCreate, cuEventCreate, 2000, (CUevent * phEvent, unsigned int Flags))                   \
  X(cuEventRecord, cuEventRecord, 2000, (CUevent hEvent, CUstream hStream))                        \
  X(cuEventSynchronize, cuEventSynchronize, 2000, (CUevent hEvent))                                \
  X(cuEventElapsedTime, cuEventElapsedTime, 2000,                                                  \
    (float *pMilliseconds, CUevent hStart, CUevent hEnd))                                          \
  X(cuEventElapsedTime_v2, cuEventElapsedTime, 12080,                                              \
    (float *pMilliseconds, CUevent hStart, CUevent hEnd))                                          \
  X(cuEventDestroy_v2, cuEventDestroy, 4000, (CUevent hEvent))                                     \
  X(cuGetProcAddress, cuGetProcAddress, 11030,                                                     \
    (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags))                           \
  X(cuGetProcAddress_v2, cuGetProcAddress, 12000,                                                  \
    (const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,                            \
     CUdriverProcAddressQueryResult *symbolStatus))

/* Prototypes, and sj_cu_pfn_<symbol>: the pointer type to resolve each symbol into. */
#define SJ_CU_DECLARE(symbol, name, version, params)                                               \
  CUresult CUDAAPI symbol params;                                                                  \
  typedef CUresult(CUDAAPI *sj_cu_pfn_##symbol) params;
SJ_CUDA_ENTRY_POINTS(SJ_CU_DECLARE)
#undef SJ_CU_DECLARE

/* The one entry point beyond CUDA that stenciljit's emulator exports: the message of the
 * calling thread's last failed call (what failed, where), "" when there was none. Valid until
 * the thread's next driver call. */
const char *emuGetLastErrorMessage(void);
typedef const char *(*sj_cu_pfn_emuGetLastErrorMessage)(void);

#endif
