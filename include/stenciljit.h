/* stenciljit: run-time compilation of affine loop nests written as C99 functions.
 *
 * A kernel is an ordinary C99 function; its integer arguments are the shape, and the
 * library specializes, schedules and compiles the function for exactly those values,
 * caching the result by shape. Results equal the sequential C function bit for bit
 * unless fast math is requested.
 *
 * Threads. Every call may run concurrently with any call on another context. On one
 * context, every call may run concurrently with every other except jit_context_destroy,
 * which must be the last call on the context and must not overlap any other (kernels of the
 * context included). jit_context_set_options waits until the calls running on the context
 * have returned and holds new ones until it is done: it never changes what a running call
 * uses. Concurrent callers of one new shape compile it once; the others wait for it.
 *
 * Errors. A failed call returns a jit_status and leaves the caller's arrays untouched. Its
 * message is both the context's (jit_context_error: the last failure of any thread on that
 * context, overwritten by the next one) and the calling thread's (jit_last_error: this
 * thread's last failure on any context, or of a call that had no usable context). With
 * several threads on one context, read jit_last_error. A NULL pointer where a call needs one,
 * or a negative size, fails with JIT_ERR_ARGS and a message; accessors with no status to
 * return give the value their comment names.
 *
 * Strings returned by the library live until the object they come from is destroyed: a
 * context's (jit_context_error, jit_context_info, jit_function_params' names) until
 * jit_context_destroy, a kernel's (code, schedule, parameter names) until its last
 * jit_kernel_release; jit_last_error's until this thread's next failing call. The text of
 * jit_context_error and jit_context_info changes in place on a later failure or
 * jit_context_set_options. */
#ifndef STENCILJIT_H
#define STENCILJIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STENCILJIT_VERSION "0.1.0"

typedef enum jit_device {
  JIT_DEVICE_AUTO =
      0, /* CUDA when a driver and a device answer, else the CPU; $JIT_DEVICE overrides */
  JIT_DEVICE_CPU = 1, /* generated C compiled in memory by TinyCC */
  JIT_DEVICE_EMU = 2, /* generated PTX run by the project's emulator through the driver API */
  JIT_DEVICE_CUDA = 3 /* generated PTX on a real GPU through libcuda */
} jit_device;

/* Return codes of every int-returning call; 0 is success. */
typedef enum jit_status {
  JIT_OK = 0,
  JIT_ERR_SYNTAX = 1,      /* the source is not valid C: line:col in the message */
  JIT_ERR_UNSUPPORTED = 2, /* valid C outside the supported subset: line:col in the message */
  JIT_ERR_ARGS = 3,        /* the call does not fit the function (kinds, NULL, extents, overlap) */
  JIT_ERR_DEVICE = 4,      /* the device or its driver failed or is not available */
  JIT_ERR_NOMEM = 5,
  JIT_ERR_INTERNAL = 6,
  JIT_ERR_LIMIT = 7 /* a compile exceeded its budget: the message names the limit and how to
                       raise it (jit_options.max_compile_ops, $JIT_MAX_COMPILE_OPS) */
} jit_status;

typedef enum jit_arg_kind {
  JIT_ARG_INT,
  JIT_ARG_LONG,
  JIT_ARG_FLOAT,
  JIT_ARG_DOUBLE,
  JIT_ARG_PTR
} jit_arg_kind;
/* Kinds only arguments have (a parameter's kind is one of the above): an array with its size in
 * bytes, JIT_BUF(p, bytes), and a jit_buffer on the context's device, JIT_BUFFER(b). Not
 * enumerators, so that switches over the kinds of parameters stay complete. */
#define JIT_ARG_BUF ((jit_arg_kind)(JIT_ARG_PTR + 1))
#define JIT_ARG_BUFFER ((jit_arg_kind)(JIT_ARG_PTR + 2))
/* Element kinds only arrays have (jit_param_info.elem_kind), beside INT, LONG, FLOAT and
 * DOUBLE: signed char (plain char where it is signed), unsigned char, short, unsigned short,
 * unsigned int, unsigned long (int8_t ... uint64_t). Not enumerators either. */
#define JIT_ELEM_INT8 ((jit_arg_kind)(JIT_ARG_PTR + 3))
#define JIT_ELEM_UINT8 ((jit_arg_kind)(JIT_ARG_PTR + 4))
#define JIT_ELEM_INT16 ((jit_arg_kind)(JIT_ARG_PTR + 5))
#define JIT_ELEM_UINT16 ((jit_arg_kind)(JIT_ARG_PTR + 6))
#define JIT_ELEM_UINT32 ((jit_arg_kind)(JIT_ARG_PTR + 7))
#define JIT_ELEM_UINT64 ((jit_arg_kind)(JIT_ARG_PTR + 8))
/* bool (_Bool): one byte holding 0 or 1 */
#define JIT_ELEM_BOOL ((jit_arg_kind)(JIT_ARG_PTR + 9))
/* Bytes of one array element of kind k; 0 for a kind that no element has. */
size_t jit_elem_size(jit_arg_kind k);

typedef struct jit_buffer jit_buffer;

typedef struct jit_arg {
  jit_arg_kind kind;
  union {
    int i;
    long l;
    float f;
    double d;
    void *p; /* also the pointer of JIT_ARG_BUF: buf.p is at the same place */
    struct {
      void *p;
      size_t bytes;
    } buf;
    jit_buffer *buffer;
  } v;
} jit_arg;

/* Functions rather than macros so that the same initializers work in C99 and C++. */
static inline jit_arg JIT_INT(int v) {
  jit_arg a;
  a.kind = JIT_ARG_INT;
  a.v.i = v;
  return a;
}
static inline jit_arg JIT_LONG(long v) {
  jit_arg a;
  a.kind = JIT_ARG_LONG;
  a.v.l = v;
  return a;
}
static inline jit_arg JIT_FLOAT(float v) {
  jit_arg a;
  a.kind = JIT_ARG_FLOAT;
  a.v.f = v;
  return a;
}
static inline jit_arg JIT_DOUBLE(double v) {
  jit_arg a;
  a.kind = JIT_ARG_DOUBLE;
  a.v.d = v;
  return a;
}
static inline jit_arg JIT_PTR(void *p) {
  jit_arg a;
  a.kind = JIT_ARG_PTR;
  a.v.p = p;
  return a;
}
/* A host array that holds bytes bytes: a call refuses it with JIT_ERR_ARGS, naming the
 * parameter and both sizes, when the declaration needs more. Prefer it to JIT_PTR. */
static inline jit_arg JIT_BUF(void *p, size_t bytes) {
  jit_arg a;
  a.kind = JIT_ARG_BUF;
  a.v.buf.p = p;
  a.v.buf.bytes = bytes;
  return a;
}
/* A device-resident array (see jit_buffer_create): the call copies nothing between the host
 * and the device. Checked against the declaration's size like JIT_BUF. */
static inline jit_arg JIT_BUFFER(jit_buffer *b) {
  jit_arg a;
  a.kind = JIT_ARG_BUFFER;
  a.v.buffer = b;
  return a;
}

typedef struct jit_context jit_context;
typedef struct jit_kernel jit_kernel;

/* The in-memory kernel cache's default bound (jit_options.cache_bytes). */
#define JIT_CACHE_BYTES_DEFAULT ((size_t)64 << 20)

/* Compilation options; part of the cache key. Zero-initialize, then set fields. */
typedef struct jit_options {
  int fast_math;           /* allow contraction and approximate division: results may differ */
  int threads;             /* CPU worker threads; 0 = $JIT_THREADS, else one per CPU of the
                              affinity mask; more than 4 per such CPU (or 256) are clamped:
                              jit_context_info says */
  const char *source_name; /* file name used in error messages; copied */
  /* Bound of the context's in-memory kernel cache, in bytes of estimated footprint; the
   * least recently used kernels are dropped beyond it, from the next compile on.
   * 0 = JIT_CACHE_BYTES_DEFAULT. Not part of the cache key. */
  size_t cache_bytes;
  /* isl operations (simplex pivots, typically 5 to 15 per microsecond) one compile may use;
   * a compile that needs more fails with JIT_ERR_LIMIT. 0 = $JIT_MAX_COMPILE_OPS when set,
   * else 100000000 (about 10 s; ordinary kernels need under 1%, 1000 loop nests 25-70%).
   * Not part of the cache key. */
  unsigned long max_compile_ops;
  /* Time tiling of stencils: "h=H,w=W0xW1..." forces the tile height H and the widths of
   * the space dimensions, outermost first ("w=64" gives the first only; the others are then
   * chosen); "none" turns time tiling off. On the CPU, H is the time steps per band; the
   * sizes not given are chosen from the caches the machine reports. On a GPU, for hybrid
   * tiles H makes bands of 2H+2 steps, W0 is the hexagon's top width and the others the
   * parallelograms' widths; for split tiles H is the band height and the widths the upright
   * trapezoids' tops; the sizes not given (and the threads per block) are the ones the tile
   * model finds fastest. NULL = $JIT_TILE (same syntax). $JIT_TILING=auto|time|hybrid|split|
   * none forces the choice. Copied; part of the cache key. */
  const char *tile;
  /* Allow reductions (x = x + e, fmin, fmax over a loop) to be reassociated: on a GPU they
   * run in parallel (partials per thread, warp shuffles, one atomic per warp), so float
   * sums round differently from the C order (within (n-1)*eps*sum|x_i|, doc/reductions.md).
   * fast_math implies it; so does JIT_REASSOCIATE=1. Part of the cache key. */
  int reassociate;
} jit_options;

/* Counters of a context, for tests and tools. */
typedef struct jit_stats {
  unsigned long compiles;   /* kernels built (cache misses) */
  unsigned long cache_hits; /* calls served by a cached kernel */
  unsigned long runs;       /* kernel executions */
  /* the caches */
  unsigned long evictions;   /* kernels dropped from the in-memory cache by its bound */
  size_t cache_bytes;        /* estimated memory of the kernels the in-memory cache holds */
  size_t cache_kernels;      /* kernels it holds */
  unsigned long disk_hits;   /* compiled artifacts (PTX, cubins) read from the on-disk cache */
  unsigned long disk_writes; /* and written to it */
} jit_stats;

/* Time spent in each compile stage of one kernel, in microseconds. */
typedef struct jit_stage_times {
  double parse, model, dependences, schedule, ast, print, compile, total;
} jit_stage_times;

/* The version of the library that runs, e.g. "0.1.0" (STENCILJIT_VERSION is the header's). */
const char *jit_version(void);

/* --- contexts --- */
jit_context *jit_context_create(jit_device device); /* NULL on failure: see jit_last_error() */
void jit_context_destroy(jit_context *ctx);
/* Message of the last failed call on ctx (from any thread); jit_last_error() when ctx is NULL. */
const char *jit_context_error(const jit_context *ctx);
const char *jit_last_error(void); /* this thread's last failed call, create included */
/* Which device was chosen and why, worker threads and their clamp; "" when ctx is NULL. */
const char *jit_context_info(const jit_context *ctx);
jit_device jit_context_device(const jit_context *ctx); /* JIT_DEVICE_AUTO when ctx is NULL */
/* Options for the calls that follow (opts NULL: all defaults); a jit_status. */
int jit_context_set_options(jit_context *ctx, const jit_options *opts);
int jit_context_stats(const jit_context *ctx, jit_stats *out); /* a jit_status */
/* Drops every kernel of the context's in-memory cache (kernels callers still hold stay
 * valid until released); the on-disk cache is left as it is (`stenciljit cache clear`).
 * A jit_status: a NULL ctx is JIT_ERR_ARGS with a message (not a no-op, unlike
 * jit_context_destroy(NULL), so that a lost context does not pass unnoticed). */
int jit_context_clear_cache(jit_context *ctx);

/* --- one call: compile (or find in the cache) and run --- */
/* entry NULL means the only function of the source, or the one that no other calls (calls
 * of the source's void functions are inlined). Returns a jit_status. */
int jit_stencil_run(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                    int nargs);

/* Runs the user's own function, compiled by TinyCC and called with the caller's arguments:
 * the reference the generated code is compared against. */
int jit_reference_run(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                      int nargs);

/* --- lower level: a kernel specialized for the integer arguments of args --- */
/* Pointer arguments may be NULL here: only kinds and integer values are used. */
int jit_kernel_compile(jit_context *ctx, const char *source, const char *entry, const jit_arg *args,
                       int nargs, jit_kernel **out);
int jit_kernel_run(jit_kernel *k, const jit_arg *args, int nargs);
void jit_kernel_release(jit_kernel *k);

typedef enum jit_code_kind { JIT_CODE_C, JIT_CODE_PTX, JIT_CODE_HOST } jit_code_kind;
const char *jit_kernel_code(const jit_kernel *k, jit_code_kind kind); /* NULL if none */
/* The chosen schedule, explained; on the CPU also which tier runs and why (the text of a
 * later call may differ: the second tier replaces the first when it is ready). */
const char *jit_kernel_schedule(const jit_kernel *k);
/* CPU kernels run TinyCC's code first (tier 1, ready in milliseconds) and, when a system C
 * compiler is there ($JIT_CC, else cc, gcc or clang), the same schedule compiled by it with
 * -O3 -march=native and nothing that changes a result (tier 2) as soon as that is ready: it
 * compiles in the background, and calls switch without waiting. $JIT_TIER=tcc|cc|auto forces
 * one (cc: the first call waits for the system compiler). Tier-2 objects are kept in the
 * on-disk cache. Returns the tier that runs now: 1 or 2; 0 for GPU kernels or NULL. */
int jit_kernel_tier(const jit_kernel *k);
jit_device jit_kernel_device(const jit_kernel *k); /* JIT_DEVICE_AUTO when k is NULL */
/* Returns the count (which may exceed max); -1 when k is NULL, or sizes with max > 0. */
int jit_kernel_tile_sizes(const jit_kernel *k, int *sizes, int max);
void jit_kernel_stage_times(const jit_kernel *k, jit_stage_times *out); /* zeros if k is NULL */
/* Device time of the kernel's last successful run in milliseconds, from CUDA events recorded
 * around its whole host loop: every launch, no host<->device copy or allocation. On
 * JIT_DEVICE_EMU it is the emulator's wall time, not a GPU time. Negative when nothing was
 * measured (the CPU device, no run yet, a driver without events). With concurrent runs of one
 * kernel, the run that finished last. */
double jit_kernel_last_device_time(const jit_kernel *k);
/* The statement instances (element updates) one run executes for the kernel's shape, for
 * throughput reports; counted when asked (milliseconds). -1 if unknown. */
long long jit_kernel_updates(const jit_kernel *k);

/* Parameters of the kernel's function: what a tool needs to build arguments. */
typedef struct jit_param_info {
  const char *name;
  jit_arg_kind kind;      /* JIT_ARG_PTR for arrays */
  jit_arg_kind elem_kind; /* arrays: element kind (INT, LONG, FLOAT, DOUBLE, JIT_ELEM_*) */
  int rank;               /* arrays: number of dimensions, else 0 */
  int is_const;           /* arrays declared const (read only) */
  size_t elems;           /* arrays: element count for the kernel's integer arguments */
  /* arrays declared without their first extent (float *A, float A[][M], float (*A)[M]): that
   * extent is one past the largest first subscript the function reaches for the integer
   * arguments, and a larger array (JIT_BUF) is accepted */
  int open_extent;
} jit_param_info;
int jit_kernel_param_count(const jit_kernel *k);                    /* -1 when k is NULL */
const jit_param_info *jit_kernel_param(const jit_kernel *k, int i); /* NULL out of range */
/* Array parameter i's extents for the kernel's integer arguments, outermost first (at most
 * max written; extents may be NULL when max is 0). Returns the rank, 0 for a scalar, -1 for a
 * NULL kernel, a bad index or NULL extents with max > 0 (jit_last_error says which). */
int jit_kernel_param_shape(const jit_kernel *k, int i, long *extents, int max);

/* Parses only: the parameter list of the entry function (elems is 0). Returns a jit_status;
 * on success *count (count may be NULL) is the number of parameters written (at most max).
 * The names stay valid until the context is destroyed, whatever calls follow. */
int jit_function_params(jit_context *ctx, const char *source, const char *entry,
                        jit_param_info *out, int max, int *count);

/* --- device-resident arrays ---
 * Memory on the context's device (host memory on JIT_DEVICE_CPU), passed to kernels with
 * JIT_BUFFER(b): a run with buffers copies nothing between the host and the device, so a time
 * loop called in chunks moves its data once each way, with the explicit upload and download.
 * A buffer can be passed to the kernels of any context on the same device (CUDA and the
 * emulator share device 0's primary context) and must be destroyed before the context that
 * created it. A call that fails before its launch leaves buffers untouched; a failed launch
 * leaves the device context unusable and the contents of the buffers it wrote undefined.
 * NULL on failure: jit_context_error(ctx) says why (jit_last_error when ctx is NULL, which is
 * JIT_ERR_ARGS). The contents start undefined. */
jit_buffer *jit_buffer_create(jit_context *ctx, size_t bytes);
/* Wraps memory that another library allocated on the same device without copying: a CUDA
 * device pointer (CUdeviceptr) of device 0's primary context on JIT_DEVICE_CUDA and
 * JIT_DEVICE_EMU, host memory on JIT_DEVICE_CPU. jit_buffer_destroy does not free it. */
jit_buffer *jit_buffer_wrap(jit_context *ctx, unsigned long long address, size_t bytes);
void jit_buffer_destroy(jit_buffer *b);      /* NULL: nothing to do, like free(NULL) */
size_t jit_buffer_size(const jit_buffer *b); /* 0 when b is NULL */
/* The buffer's address: host memory on the CPU device, else the CUdeviceptr; 0 when b is
 * NULL. */
unsigned long long jit_buffer_address(const jit_buffer *b);
/* Copies bytes bytes (at most jit_buffer_size) from host memory to the start of the buffer,
 * or from its start to host memory. Returns a jit_status; the message is in
 * jit_context_error of the buffer's context (only jit_last_error when b is NULL: JIT_ERR_ARGS).
 * The host pointer may be NULL only when bytes is 0. */
int jit_buffer_upload(jit_buffer *b, const void *src, size_t bytes);
int jit_buffer_download(jit_buffer *b, void *dst, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
