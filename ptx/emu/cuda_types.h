/* CUDA driver API types with the ABI of cuda.h, declared here so the emulator builds
 * without the CUDA toolkit. Define EMU_WITH_CUDA_H to use the toolkit's cuda.h instead
 * (the signature check does this: every exported function must then match cuda.h). */
#ifndef EMU_CUDA_TYPES_H
#define EMU_CUDA_TYPES_H

#include <stddef.h>

/* Constants used by the emulator, with their cuda.h values (checked by abi_check.c). */
#define EMU_CURESULT_LIST(X)                                                                       \
  X(CUDA_SUCCESS, 0)                                                                               \
  X(CUDA_ERROR_INVALID_VALUE, 1)                                                                   \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                                                   \
  X(CUDA_ERROR_NOT_INITIALIZED, 3)                                                                 \
  X(CUDA_ERROR_DEINITIALIZED, 4)                                                                   \
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
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716)                                                            \
  X(CUDA_ERROR_LAUNCH_FAILED, 719)                                                                 \
  X(CUDA_ERROR_NOT_SUPPORTED, 801)                                                                 \
  X(CUDA_ERROR_UNKNOWN, 999)

#define EMU_ATTR_LIST(X)                                                                           \
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
  X(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 106)

#define EMU_FUNC_ATTR_LIST(X)                                                                      \
  X(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0)                                                    \
  X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)                                                        \
  X(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, 2)                                                         \
  X(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, 3)                                                         \
  X(CU_FUNC_ATTRIBUTE_NUM_REGS, 4)                                                                 \
  X(CU_FUNC_ATTRIBUTE_PTX_VERSION, 5)                                                              \
  X(CU_FUNC_ATTRIBUTE_BINARY_VERSION, 6)                                                           \
  X(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, 7)                                                            \
  X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

#define EMU_JIT_LIST(X)                                                                            \
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

/* cuLaunchKernel's `extra` markers are pointers with these values in cuda.h. */
#define EMU_LAUNCH_PARAM_END ((void *)0x00)
#define EMU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define EMU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

#ifdef EMU_WITH_CUDA_H
#include <cuda.h>
#else
#define EMU_ENUM_ITEM(name, value) name = value,
typedef enum cudaError_enum { EMU_CURESULT_LIST(EMU_ENUM_ITEM) } CUresult;
typedef enum CUdevice_attribute_enum {
  EMU_ATTR_LIST(EMU_ENUM_ITEM) CU_DEVICE_ATTRIBUTE_MAX = 0x7fffffff
} CUdevice_attribute;
typedef enum CUfunction_attribute_enum {
  EMU_FUNC_ATTR_LIST(EMU_ENUM_ITEM) CU_FUNC_ATTRIBUTE_MAX = 0x7fffffff
} CUfunction_attribute;
typedef enum CUjit_option_enum {
  EMU_JIT_LIST(EMU_ENUM_ITEM) CU_JIT_NUM_OPTIONS = 0x7fffffff
} CUjit_option;
#undef EMU_ENUM_ITEM

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
#endif

#endif
