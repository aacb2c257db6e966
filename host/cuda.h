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
  int shared_per_block;       /* without the opt-in (static shared memory's limit), bytes */
  int shared_per_block_optin; /* with the opt-in attribute, bytes */
  int regs_per_block;
  int warp_size;
  /* for the tile model (sched/tile_model.h) */
  int threads_per_sm, blocks_per_sm, shared_per_sm;
  int shared_reserved; /* of shared_per_sm, what the system takes per resident block */
  int l2_bytes;
  int clock_khz, mem_clock_khz, bus_bits; /* DRAM: 2 x clock x bus width */
  int driver_version;                     /* e.g. 13000 */
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

/* cuModuleLoadDataEx with error and info logs; the error log text is in err on failure. ptx:
 * PTX text, or an image sj_cuda_link made. */
int sj_cuda_load(sj_cuda *c, const void *ptx, sj_cuda_module **out, sj_error *err);
/* The driver's binary image of ptx (cuLink*: a cubin on a GPU, the PTX text itself on the
 * emulator), to keep and load later without compiling again; *image malloc'd, *size bytes. */
int sj_cuda_link(sj_cuda *c, const char *ptx, void **image, size_t *size, sj_error *err);
/* Whether the driver links PTX into binary images (cuLink*): a real one does, and so does the
 * emulator (its image is the PTX text), so that it takes the on-disk cache's path a GPU
 * takes. */
int sj_cuda_can_link(const sj_cuda *c);
/* The kernel called name, or NULL with err filled. */
void *sj_cuda_function(sj_cuda *c, sj_cuda_module *m, const char *name, sj_error *err);
void sj_cuda_unload(sj_cuda *c, sj_cuda_module *m);

int sj_cuda_alloc(sj_cuda *c, size_t bytes, sj_devptr *out, sj_error *err);
/* cuMemFree; a failure is an error like any other (the memory is released with the context). */
int sj_cuda_free(sj_cuda *c, sj_devptr p, sj_error *err);
int sj_cuda_to_device(sj_cuda *c, sj_devptr dst, const void *src, size_t bytes, sj_error *err);
int sj_cuda_to_host(sj_cuda *c, void *dst, sj_devptr src, size_t bytes, sj_error *err);
/* The most shared memory a block may have on the device: the opt-in maximum (on devices
 * before Volta, which have none, the driver reports the static limit). */
int sj_cuda_shared_limit(const sj_cuda *c);
/* Lets function's launches ask for shared_bytes of dynamic shared memory per block: above the
 * 48 KB every kernel may have, the kernel opts in (cuFuncSetAttribute with
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). More than the device's opt-in maximum is a
 * JIT_ERR_DEVICE error saying so. */
int sj_cuda_allow_shared(sj_cuda *c, void *function, unsigned shared_bytes, sj_error *err);
/* cuLaunchKernel with kernelParams and shared_bytes of dynamic shared memory; checks grid, block
 * and shared memory against the device's and the kernel's limits first (a limit exceeded is a
 * JIT_ERR_DEVICE error naming it). */
int sj_cuda_launch(sj_cuda *c, void *function, const unsigned grid[3], const unsigned block[3],
                   unsigned shared_bytes, void **params, sj_error *err);
int sj_cuda_synchronize(sj_cuda *c, sj_error *err);
/* Did a call fail with a sticky error (a failed launch, an illegal address...)? CUDA then
 * refuses every later call on the context: it is lost until it is destroyed. */
int sj_cuda_lost(const sj_cuda *c);

/* Timing from CUDA events on the NULL stream: record one before and one after the work; elapsed
 * waits for the end event. On the emulator, where every call completes before it returns, the
 * time is the emulator's wall-clock time on the host, not a GPU time. */
typedef struct sj_cuda_event sj_cuda_event;
int sj_cuda_event_create(sj_cuda *c, sj_cuda_event **out, sj_error *err);
int sj_cuda_event_record(sj_cuda *c, sj_cuda_event *e, sj_error *err);
int sj_cuda_event_elapsed(sj_cuda *c, sj_cuda_event *start, sj_cuda_event *end, float *ms,
                          sj_error *err);
void sj_cuda_event_destroy(sj_cuda *c, sj_cuda_event *e);

/* A pair of those events around some work: the device time it took (on the
 * emulator, which runs launches synchronously, its wall time). */
typedef struct sj_cuda_timer {
  sj_cuda_event *start, *end;
} sj_cuda_timer;
/* Creates the events and records the start. sj_cuda_timer_free releases them, whatever
 * happened. */
int sj_cuda_timer_start(sj_cuda *c, sj_cuda_timer *t, sj_error *err);
/* Records the end, waits for it and gives the milliseconds since the start. */
int sj_cuda_timer_stop(sj_cuda *c, sj_cuda_timer *t, float *ms, sj_error *err);
void sj_cuda_timer_free(sj_cuda *c, sj_cuda_timer *t);

#endif
