/* jit/: internals shared by the public API, the compile pipeline and the cache. */
#ifndef SJ_JIT_H
#define SJ_JIT_H

#include <pthread.h>
#include <stdint.h>

#include "host/cuda.h"
#include "host/host.h"
#include "base/ast.h"
#include "stenciljit.h"

typedef struct sj_cache_entry sj_cache_entry;

typedef struct sj_cache {
  pthread_mutex_t lock;
  pthread_cond_t ready; /* an entry left the compiling state */
  sj_cache_entry **buckets;
  size_t nbuckets, count;
  sj_cache_entry *newest, *oldest; /* use order of the compiled entries */
  size_t bytes;                    /* their footprint, held under jit_options.cache_bytes */
  struct sj_disk *disk;            /* the on-disk cache; NULL when off */
} sj_cache;

/* A table of strings that live until it is cleared (jit/names.c). */
typedef struct sj_names {
  char **slots;
  size_t nslots, count;
} sj_names;
/* The table's copy of s (NULL when out of memory); the caller serializes calls. */
const char *sj_names_intern(sj_names *t, const char *s);
void sj_names_clear(sj_names *t);

/* Every call that reads opts, source_name or pool holds `calls` for reading from its start
 * to its end; jit_context_set_options changes them holding it for writing, so it waits for
 * the calls running and never frees what they use. */
struct jit_context {
  jit_device device;
  jit_options opts;
  char *source_name; /* copy of opts.source_name */
  char info[512];
  size_t info_device;     /* length of the device part of info; the thread part follows */
  pthread_rwlock_t calls; /* see above */
  pthread_mutex_t lock;   /* error, stats, info, names */
  char error[1024];
  jit_stats stats;
  sj_pool *pool;
  sj_cache cache;
  sj_names names;    /* jit_function_params' names, kept until the context is destroyed */
  sj_cuda *cuda;     /* EMU and CUDA devices */
  int device_failed; /* a launch failed: the device context is unusable (atomic access) */
};

struct jit_kernel {
  jit_context *ctx;
  int refs; /* the cache holds one; each jit_kernel_compile caller one more */
  jit_device device;
  sj_program *program;
  sj_func *fn;
  /* the call's key (sj_call_key), which the on-disk cache's keys extend */
  char *key;
  int nparams;
  jit_arg_kind *kinds;    /* expected kind of each argument */
  long *shape;            /* integer argument values the kernel is specialized for */
  jit_param_info *params; /* names point into program */
  size_t *bytes;          /* per parameter: array size in bytes, 0 for scalars */
  int narrays, nscalars;
  char *c_code;
  char *schedule; /* the explanation; exact dependences appended when first asked for */
  int explained;
  int ntiles, *tiles;
  int nthreads;
  sj_tcc *code;
  sj_cpu_fn entry;
  jit_stage_times times;
  sj_ir_module *ir; /* while compiling */
  int ntraps;
  sj_loc *traps; /* where the kernel's checks are (sj_ir_module.traps) */
  /* GPU */
  char *ptx, *host_code;
  sj_cuda_module *module;
  int nkernels;
  sj_gpu_kernel *kernels;
  int *written; /* by array id: some statement stores to it */
  /* the arrays of the locals kept in memory (array ids narrays ..): each run allocates
   * them, on the device that runs it */
  int ntemps;
  size_t *temp_bytes;
  int (*host)(void *rt);
  double device_ms; /* CUDA events around the last run's host loop; < 0: not measured */
};

/* GPU kernels (jit/offload.c): load the module and compile the host loop; run with transfers
 * of exactly the declared extents. The caller's arrays change only when all succeeded. */
int sj_gpu_build(jit_kernel *k, sj_error *err);
/* resident[id] != 0 is a device-resident array, used in place with no copy either way;
 * resident may be NULL. */
int sj_gpu_run_kernel(jit_kernel *k, void *const *arrays, const sj_devptr *resident,
                      const double *scalars, sj_error *err);
void sj_gpu_release(jit_kernel *k);

/* CPU kernels (jit/cpurun.c): a run on the pool; when a check of the kernel can fail, on
 * copies of the arrays it writes, so that the caller's arrays change only on success. */
int sj_cpu_run_kernel(jit_kernel *k, void **arrays, const double *scalars, sj_error *err);
/* The message of a failed check: its source position (err gets it); a jit_status. */
int sj_trap_error(const jit_kernel *k, int code, sj_error *err);

/* Compiles source for args into a new kernel (refs = 1); a jit_status. */
int sj_compile(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
               int nargs, jit_kernel **out, sj_error *err);
void sj_kernel_free(jit_kernel *k);

/* The cache: finds or compiles the kernel for this call and returns it with one more
 * reference. Concurrent callers with one key compile once. */
int sj_cache_get(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                 int nargs, jit_kernel **out, sj_error *err);
void sj_cache_init(sj_cache *c);
void sj_cache_clear(sj_cache *c);
/* The key of a call: everything it compiles from, normalized (jit/key.c); malloc'd. */
char *sj_call_key(const jit_context *ctx, const char *source, const char *entry,
                  const jit_arg *args, int nargs, size_t *len);

void sj_kernel_release(jit_kernel *k);
/* The number and kinds of a call's arguments against the kernel's parameters. */
int sj_check_signature(const jit_kernel *k, const jit_arg *args, int nargs, sj_error *err);
/* The pointers and sizes of a call (context, source, args for nargs); a jit_status with the
 * message set. */
int sj_check_call(jit_context *ctx, const char *source, const jit_arg *args, int nargs);
/* The cached kernel for a call that reads host memory, after the call's arguments were
 * validated against it; call holds them as plain pointers (free it even on failure). */
typedef struct sj_call_args sj_call_args;
int sj_kernel_for_call(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                       int nargs, sj_call_args *call, jit_kernel **out);
void sj_context_fail(jit_context *ctx, const sj_error *err); /* jit_context_error's text */
extern __thread char sj_last_error[1024];                   /* jit_last_error's text */
char *sj_explain_dependences(const jit_kernel *k);           /* malloc'd */
/* A call's arguments with JIT_BUF and JIT_BUFFER rewritten as JIT_ARG_PTR (jit/buffer.c):
 * what the cache key, the signature and the overlap checks see. Free it even on failure. */
struct sj_call_args {
  const jit_arg *args; /* the caller's own array when nothing needed rewriting */
  jit_arg small[8], *owned;
  int resident; /* some argument is a jit_buffer */
};
int sj_call_args_plain(jit_context *ctx, const jit_arg *args, int nargs, sj_call_args *out,
                       sj_error *err);
/* The same for calls that read host memory: refuses jit_buffers on a GPU device. */
int sj_call_args_host(jit_context *ctx, const jit_arg *args, int nargs, sj_call_args *out,
                      sj_error *err);
/* The sizes of the caller's JIT_BUF and JIT_BUFFER arguments against k's declaration. */
int sj_call_args_check(const jit_kernel *k, const jit_arg *args, int nargs, sj_error *err);
/* Device addresses of the caller's jit_buffers by array id, 0 for host arrays. */
void sj_call_args_resident(const jit_kernel *k, const jit_arg *args, sj_devptr *by_array);
void sj_call_args_free(sj_call_args *a);

jit_arg_kind sj_scalar_kind(sj_type t); /* the argument kind of a scalar of type t */
void sj_param_info(const sj_sym *param, jit_param_info *info); /* elems left 0 */

#endif
