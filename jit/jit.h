/* jit/: internals shared by the public API, the compile pipeline and the cache. */
#ifndef SJ_JIT_H
#define SJ_JIT_H

#include <pthread.h>
#include <stdint.h>

#include <isl/ast.h>

#include "host/cuda.h"
#include "host/host.h"
#include "base/ast.h"
#include "sched/sched.h"
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

/* The CPU's second tier (jit/tier.c): where JIT_TIER points, and the background thread that
 * compiles kernels with the system compiler, one at a time, in the order they came. */
typedef enum sj_tier_policy { SJ_POLICY_AUTO, SJ_POLICY_TCC, SJ_POLICY_CC } sj_tier_policy;
typedef struct sj_tier_job sj_tier_job;
typedef struct sj_tiers {
  sj_tier_policy policy;
  pthread_mutex_t mu;
  pthread_cond_t wake; /* a job came, or quit */
  pthread_t thread;
  int started, quit;
  unsigned gen; /* the fork generation the thread belongs to */
  sj_tier_job *head, *tail;
  sj_tier_job *current; /* the job being compiled */
  int child;            /* the compiler's process while it runs, for quit to kill */
} sj_tiers;

/* A CPU kernel's function, the threads its schedule spreads over, and where its checks are
 * (the codes of sj_ir_module.traps). */
typedef struct sj_cpu_code {
  sj_cpu_fn fn;
  int nthreads;
  int ntraps;
  sj_trap *traps; /* owned */
} sj_cpu_code;

/* What a CPU kernel runs (jit_kernel.tier_state); the kernel's tier_why says why. */
typedef enum sj_tier_state {
  SJ_TIER_TCC_ONLY, /* TinyCC's code, and no second tier planned */
  SJ_TIER_WAITING,  /* TinyCC's code while the system compiler works in the background */
  SJ_TIER_CC,       /* the system compiler's code */
  SJ_TIER_FAILED,   /* TinyCC's code: the second tier failed */
  SJ_TIER_NSTATES
} sj_tier_state;

/* What a kernel's compiles read of the context, copied when the first starts (the second
 * tier's runs later, on the tier thread, while the options may change). */
typedef struct sj_settings {
  char *source_name, *tile; /* owned copies, or NULL */
  int nthreads, tiling, fast_math;
  int reassociate;      /* sj_reassociates */
  unsigned long budget; /* isl operations per compile */
  const char *budget_from;
} sj_settings;

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
  sj_tiers tiers;
  char *tile; /* time tile sizes (JIT_TILE's syntax): jit_options.tile, else $JIT_TILE */
  int tiling; /* sj_tiling: $JIT_TILING */
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
  long *first_extent;     /* per parameter: an array's first extent, an open one inferred */
  int narrays, nscalars;
  sj_settings settings;
  char *c_code;
  char *schedule;  /* the explanation (of the first tier on the CPU) */
  char *schedule2; /* the second tier's, once made */
  char *deps;      /* the exact dependences, computed when first asked for */
  int ntiles, *tiles, ntiles2, *tiles2;
  sj_tcc *code;
  /* CPU: TinyCC's code (tier1) and the system compiler's (tier2, from c_code2: plain
   * innermost loops); running points to the one that runs, read and written atomically, once
   * per run (every worker of a run runs one function). */
  sj_cpu_code tier1, tier2;
  const sj_cpu_code *running;
  char *c_code2;
  sj_cc_obj *obj;               /* tier2's shared object, once loaded */
  int tier_state;               /* sj_tier_state, atomic */
  char tier_why[512];           /* under ctx->lock */
  char *shown[SJ_TIER_NSTATES]; /* jit_kernel_schedule's text in each state */
  double compiled_at;           /* when the first tier was ready (monotonic, ms) */
  jit_stage_times times;
  sj_ir_module *ir; /* while compiling */
  int ntraps;
  sj_trap *traps; /* the kernel's checks (sj_ir_module.traps) */
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

/* CPU kernels' code (jit/cpubuild.c): the C of a tier from its schedule's AST (c_code for
 * TinyCC, or second: c_code2 for the system compiler), and TinyCC's compile of c_code. */
int sj_cpu_lower(jit_kernel *k, const sj_model *m, __isl_keep isl_ast_node *ast, int second,
                 sj_error *err);
int sj_cpu_compile(jit_kernel *k, sj_error *err);

/* CPU kernels (jit/cpurun.c): a run on the pool; when a check of the kernel can fail, on
 * copies of the arrays it writes, so that the caller's arrays change only on success. */
int sj_cpu_run_kernel(jit_kernel *k, void **arrays, const double *scalars, sj_error *err);
/* The message of a failed check: its source position (err gets it); a jit_status. */
int sj_trap_error(const jit_kernel *k, int code, sj_error *err);

/* The second tier (jit/tier.c). The policy of $JIT_TIER; -1 for a value it does not know. */
int sj_tier_policy_env(void);
void sj_tiers_init(sj_tiers *t, sj_tier_policy policy);
/* In a process forked after t's thread started: a thread of its own for the jobs the
 * parent's left (called before each run, so that those kernels still reach tier 2). */
void sj_tiers_revive(sj_tiers *t);
/* Stops the thread (killing a compiler that runs) and drops the kernels it would compile. */
void sj_tiers_stop(sj_tiers *t);
/* k (compiled by TinyCC) switches to the system compiler's code when that is ready: on the
 * context's tier thread, which holds a reference meanwhile, make(k) sets c_code2 (with
 * schedule2, tiles2 and tier2's checks), which the system compiler compiles. */
typedef int (*sj_tier_make)(jit_kernel *k, sj_error *err);
void sj_tier_later(jit_kernel *k, sj_tier_make make);
/* k runs the system compiler's code of c_code2 from now on (JIT_TIER=cc); a jit_status. */
int sj_tier_now(jit_kernel *k, sj_error *err);
/* Sets what k runs and why (tier_state, tier_why). */
void sj_tier_set(jit_kernel *k, sj_tier_state state, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* jit_kernel_schedule's text for k's tier now: the schedule of that tier, why it runs, the
 * exact dependences (k->deps) when computed; kept until k is freed. The caller holds
 * ctx->lock. */
const char *sj_tier_shown(jit_kernel *k);

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
/* Whether the context's compiles may reassociate reductions: jit_options.reassociate or
 * fast_math, or JIT_REASSOCIATE set (to anything but "" and "0"). */
int sj_reassociates(const jit_context *ctx);
char *sj_call_key(const jit_context *ctx, const char *source, const char *entry,
                  const jit_arg *args, int nargs, size_t *len);

void sj_kernel_release(jit_kernel *k);
/* The number and kinds of a call's arguments against the kernel's parameters. */
int sj_check_signature(const jit_kernel *k, const jit_arg *args, int nargs, sj_error *err);
/* The value of shape parameter p for argument a, as C converts it to p's type. */
long sj_shape_value(const sj_sym *p, const jit_arg *a);
/* The pointers and sizes of a call (context, source, args for nargs); a jit_status with the
 * message set. */
int sj_check_call(jit_context *ctx, const char *source, const jit_arg *args, int nargs);
/* The cached kernel for a call that reads host memory, after the call's arguments were
 * validated against it; call holds them as plain pointers (free it even on failure). */
typedef struct sj_call_args sj_call_args;
int sj_kernel_for_call(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                       int nargs, sj_call_args *call, jit_kernel **out);
void sj_context_fail(jit_context *ctx, const sj_error *err); /* jit_context_error's text */
extern __thread char sj_last_error[1024];                    /* jit_last_error's text */
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
