/* base/cuda_abi.h against the CUDA toolkit's cuda.h, at compile time (built only where cuda.h
 * and cudaTypedefs.h exist, with -Werror: a difference fails the build).
 *  - types: the header's typedefs are redefinitions of cuda.h's; a different type is an error;
 *  - entry points: each is redeclared with the header's parameters (a conflict is an error) and
 *    assigned to cudaTypedefs.h's pointer type of its name and version;
 *  - constants: each must have cuda.h's value. */
#include <cuda.h>
#include <cudaTypedefs.h>

/* cuda.h maps these names to newer versions; the header also lists the original symbols. */
#undef cuDevicePrimaryCtxRelease
#undef cuEventElapsedTime
#undef cuGetProcAddress
/* cudaTypedefs.h declares the pre-11.0 type only for the driver's own build; CUDA 11 kept the
 * signature and changed what the call does, so both versions have one pointer type. */
typedef PFN_cuDevicePrimaryCtxRelease_v11000 PFN_cuDevicePrimaryCtxRelease_v7000;

#define SJ_CUDA_ABI_CHECK
#include "base/cuda_abi.h"

#define SJ_CHECK_VALUE(name, value) _Static_assert((long long)(name) == (value), #name);
SJ_CU_RESULT_LIST(SJ_CHECK_VALUE)
SJ_CU_DEVICE_ATTRIBUTE_LIST(SJ_CHECK_VALUE)
SJ_CU_FUNCTION_ATTRIBUTE_LIST(SJ_CHECK_VALUE)
SJ_CU_JIT_OPTION_LIST(SJ_CHECK_VALUE)
SJ_CU_JIT_INPUT_TYPE_LIST(SJ_CHECK_VALUE)
SJ_CU_EVENT_FLAGS_LIST(SJ_CHECK_VALUE)
SJ_CU_PROC_ADDRESS_LIST(SJ_CHECK_VALUE)
SJ_CU_PROC_ADDRESS_RESULT_LIST(SJ_CHECK_VALUE)
SJ_CU_LAUNCH_PARAM_LIST(SJ_CHECK_VALUE)

#define SJ_CHECK_ENTRY(symbol, name, version, params)                                              \
  static PFN_##name##_v##version sj_check_##symbol __attribute__((unused)) = symbol;               \
  _Static_assert(__builtin_types_compatible_p(PFN_##name##_v##version, sj_cu_pfn_##symbol),        \
                 #symbol);
SJ_CUDA_ENTRY_POINTS(SJ_CHECK_ENTRY)
