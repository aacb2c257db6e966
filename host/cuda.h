/* The CUDA driver API, loaded with dlopen (no link-time dependency on CUDA): the real
 * libcuda or the project's emulator, which exports the same entry points. */
#ifndef SJ_CUDA_H
#define SJ_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "base/ast.h"

typedef struct sj_cuda sj_cuda;
typedef struct sj_cuda_module sj_cuda_module;
typedef uint64_t sj_devptr; /* CUdeviceptr */

typedef struct sj_cuda_props {
  char name[256];
  int cc_major, cc_minor;
  int multiprocessors;
  int max_threads_per_block;
  int max_block[3], max_grid[3];
  int shared_per_block;       /* static limit, bytes */
  int shared_per_block_optin; /* with the opt-in attribute, bytes */
  int regs_per_block;
  int warp_size;
  int driver_version; /* e.g. 13000 */
  size_t total_mem;
  char ptx_version[16]; /* ".version" operand this driver accepts, e.g. "9.0" */
  char ptx_target[16];  /* ".target" operand for this device, e.g. "sm_90" */
} sj_cuda_props;

/* Loads library (NULL: $JIT_CUDA_LIBRARY, else libcuda.so.1), initializes the driver, takes
 * device 0 and its primary context, reads the device properties. A jit_status; err says
 * which call failed and the CUresult's name and text. */
int sj_cuda_open(const char *library, sj_cuda **out, sj_error *err);
void sj_cuda_close(sj_cuda *c);
const sj_cuda_props *sj_cuda_get_props(const sj_cuda *c);
/* The path of the project's emulator library (set at build time). */
const char *sj_cuda_emulator_path(void);

/* cuModuleLoadDataEx of PTX text or a cubin, with error and info logs; the error log text
 * is in err on failure. */
int sj_cuda_load(sj_cuda *c, const char *ptx, sj_cuda_module **out, sj_error *err);
/* Whether the driver links (cuLinkCreate_v2, cuLinkAddData_v2, cuLinkComplete,
 * cuLinkDestroy): a real driver does, the emulator need not. */
int sj_cuda_can_link(const sj_cuda *c);
/* PTX to a cubin for the current device (malloc'd *image of *size bytes), which sj_cuda_load
 * takes as well. A jit_status; the linker's error log is in err on failure. */
int sj_cuda_link(sj_cuda *c, const char *ptx, void **image, size_t *size, sj_error *err);
/* The kernel called name, or NULL with err filled. */
void *sj_cuda_function(sj_cuda *c, sj_cuda_module *m, const char *name, sj_error *err);
void sj_cuda_unload(sj_cuda *c, sj_cuda_module *m);

int sj_cuda_alloc(sj_cuda *c, size_t bytes, sj_devptr *out, sj_error *err);
void sj_cuda_free(sj_cuda *c, sj_devptr p);
int sj_cuda_to_device(sj_cuda *c, sj_devptr dst, const void *src, size_t bytes, sj_error *err);
int sj_cuda_to_host(sj_cuda *c, void *dst, sj_devptr src, size_t bytes, sj_error *err);
/* cuLaunchKernel with kernelParams; checks grid, block and shared memory against the
 * device limits first (a limit exceeded is a JIT_ERR_DEVICE error naming it). */
int sj_cuda_launch(sj_cuda *c, void *function, const unsigned grid[3], const unsigned block[3],
                   unsigned shared_bytes, void **params, sj_error *err);
int sj_cuda_synchronize(sj_cuda *c, sj_error *err);

#endif
