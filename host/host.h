/* host/: the CPU backend (C printer, TinyCC, thread pool) and the reference path (the
 * user's function through libffi). */
#ifndef SJ_HOST_H
#define SJ_HOST_H

#include "astgen/ir.h"
#include "base/ast.h"
#include "host/cuda.h"

/* Signature of the generated CPU kernel: arrays (by array id) and floating scalars (in
 * parameter order, as doubles); tid of nth threads; bar is the barrier the threads share
 * (NULL when nth is 1), a struct whose first member is its wait function, void (*)(void *bar);
 * err receives the code of a failed check (see sj_ir_module.traps), 0 otherwise. */
typedef void (*sj_cpu_fn)(void **arrays, const double *scalars, int tid, int nth, void *bar,
                          int *err);

/* The C text of the first function of mod (host/cprint.c): the CPU kernel
 * `void __sj_kernel(...)` of sj_cpu_fn's signature, or for a GPU the host loop
 * `int __sj_host(void *rt)` that runs every launch in order through
 * `int __sj_launch(void *rt, int kernel, const long *host_iterators)`, stopping at the
 * first that fails (nonzero). malloc'd. */
char *sj_print_c(const sj_ir_module *mod);

/* One run of a GPU kernel's host loop: what each launch passes (host/launch.c). */
typedef struct sj_gpu_kernel {
  void *function;
  unsigned grid[3], block[3];
  unsigned shared; /* bytes of dynamic shared memory per block */
  int nparams;
  sj_ir_param *params; /* malloc'd copy of the kernel function's (names not kept) */
} sj_gpu_kernel;

typedef struct sj_gpu_run {
  struct sj_cuda *cuda;
  const sj_gpu_kernel *kernels;
  const sj_devptr *arrays; /* device pointers by array id */
  const double *scalars;   /* by scalar order */
  sj_devptr error;         /* the error word TRAP writes */
  sj_error *err;           /* the first failure */
} sj_gpu_run;

/* The launch callback of host loops: rt is a sj_gpu_run. 0 on success. */
int sj_gpu_launch(void *rt, int kernel, const long *host_iterators);

/* TinyCC, serialized by a process-wide mutex (TinyCC has global state). */
typedef struct sj_tcc sj_tcc;
sj_tcc *sj_tcc_compile(const char *source, const char *what, sj_error *err);
void *sj_tcc_symbol(sj_tcc *c, const char *name);
void sj_tcc_free(sj_tcc *c);

/* The system C compiler, the second tier (host/cc.c): $JIT_CC (a program name or path),
 * else cc, gcc or clang on $PATH, found once per process. NULL when there is none; *why (may
 * be NULL) says where it came from or why there is none. */
const char *sj_cc_path(const char **why);
/* The flags it compiles with, as one line. */
const char *sj_cc_flags(void);
/* What its code depends on besides the text and the flags: its path, its --version line and
 * the CPU -march=native stands for; NULL without a working compiler. Runs it once. */
const char *sj_cc_identity(void);
/* Learns the compiler process while it runs (pid), and 0 when it is gone. */
typedef void (*sj_cc_watch)(void *user, int pid);
/* The shared object compiled from source (malloc'd, *len bytes), or NULL with err set to the
 * compiler's first line of complaint. */
void *sj_cc_compile(const char *source, size_t *len, sj_cc_watch on_spawn, void *user,
                    sj_error *err);
/* A shared object loaded from its bytes. */
typedef struct sj_cc_obj sj_cc_obj;
sj_cc_obj *sj_cc_load(const void *data, size_t len, sj_error *err);
void *sj_cc_symbol(sj_cc_obj *o, const char *name);
void sj_cc_free(sj_cc_obj *o);

/* Worker threads that run one function on every thread, the caller being thread 0. */
typedef struct sj_pool sj_pool;
sj_pool *sj_pool_new(int nthreads); /* NULL when out of memory */
int sj_pool_size(const sj_pool *p);
/* Runs fn(arg, tid, nth, bar) on nth = pool size threads and waits; when the pool is busy
 * with another caller, runs fn on the calling thread alone (nth = 1). */
void sj_pool_run(sj_pool *p, void (*fn)(void *arg, int tid, int nth, void *bar), void *arg);
void sj_pool_free(sj_pool *p);
/* How many times this process has forked a child that is this process (0 in the first): a
 * pool or thread made in an older generation belongs to a parent. */
unsigned sj_fork_generation(void);
/* Held while a forked child rebuilds what belonged to its parent's threads. */
void sj_fork_lock(void);
void sj_fork_unlock(void);

/* Calls fn, a function with the signature of f, with values (one per parameter: int, long,
 * float, double or a pointer, as the parameter's kind says) through libffi. */
typedef union sj_value {
  int i;
  long l;
  float f;
  double d;
  void *p;
} sj_value;
int sj_ffi_call(const sj_func *f, void *fn, const sj_value *values, sj_error *err);

#endif
