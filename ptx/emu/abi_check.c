/* Compiled only when cuda.h is available: the emulator's constants must have cuda.h's values
 * and its handle types cuda.h's sizes. (driver.c, compiled against cuda.h in the same check
 * target, verifies every exported function's signature.) */
#include "cuda_types.h"
#include "emu.h"

#define EMU_CHECK_VALUE(name, value) _Static_assert((int)(name) == (value), #name);
EMU_CURESULT_LIST(EMU_CHECK_VALUE)
EMU_ATTR_LIST(EMU_CHECK_VALUE)
EMU_FUNC_ATTR_LIST(EMU_CHECK_VALUE)
EMU_JIT_LIST(EMU_CHECK_VALUE)
_Static_assert(sizeof(CUdeviceptr) == 8, "CUdeviceptr");
_Static_assert(sizeof(CUdevice) == sizeof(int), "CUdevice");
_Static_assert(sizeof(CUresult) == sizeof(int), "CUresult");
_Static_assert(EMU_LAUNCH_PARAM_BUFFER_POINTER == CU_LAUNCH_PARAM_BUFFER_POINTER, "extra");
_Static_assert(EMU_LAUNCH_PARAM_BUFFER_SIZE == CU_LAUNCH_PARAM_BUFFER_SIZE, "extra");
_Static_assert(EMU_LAUNCH_PARAM_END == CU_LAUNCH_PARAM_END, "extra");

int emu_abi_check_anchor(void);
int emu_abi_check_anchor(void) {
  return 0;
}
