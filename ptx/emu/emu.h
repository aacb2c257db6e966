/* stenciljit PTX emulator: a drop-in libcuda (libstenciljit_cudaemu.so).
 *
 * The library exports the CUDA driver API entry points with cuda.h's signatures and
 * _v2 symbol names; load it with dlopen and resolve them as you would in libcuda.so.1.
 * Beyond CUDA it exports one function:
 *
 *   const char *emuGetLastErrorMessage(void);
 *
 * the message of the last failed call (module load or launch: kernel, PTX line, block
 * and thread, what happened), or "" when there was none. The pointer stays valid until
 * the next driver call of the process.
 *
 * Environment:
 *   JIT_EMU_STATS=file   append one JSON object per launch (counters) to file
 *   JIT_EMU_FAIL=list    failure injection, comma-separated: alloc:N, load:N, launch:N
 *                        make the Nth cuMemAlloc / module load / launch of the process fail
 *   JIT_EMU_RACECHECK=0  disable the shared-memory race detector (on by default)
 */
#ifndef STENCILJIT_EMU_H
#define STENCILJIT_EMU_H

#ifdef __cplusplus
extern "C" {
#endif

const char *emuGetLastErrorMessage(void);

#ifdef __cplusplus
}
#endif

#endif
