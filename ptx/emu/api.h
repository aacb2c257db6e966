/* The driver API's objects and what every entry point does on the way in and out (api_*.c).
 *
 * Every entry point runs under one process-wide lock: it starts with emu_enter, which takes the
 * lock, checks that the driver is initialized and (for calls that need one) that the calling
 * thread has a usable context, and applies failure injection; it ends with emu_leave, which
 * keeps the thread's last message and releases the lock. */
#ifndef EMU_API_H
#define EMU_API_H

#include "internal.h"

/* Kinds of call that JIT_EMU_FAIL=kind:N fails (the N-th call of the kind), with the result an
 * injected failure returns. X(ID, name, result, sticky). Kinds before EMU_FAULT_PER_CONTEXT are
 * counted per process and start again at a cuInit made while no context exists; the others are
 * counted per context, from its creation. A sticky failure poisons the context, as a failed
 * launch does on a GPU. */
#define EMU_FAULT_LIST(X)                                                                          \
  X(INIT, "init", CUDA_ERROR_UNKNOWN, 0)                                                           \
  X(CTX, "ctx", CUDA_ERROR_UNKNOWN, 0)                                                             \
  X(ALLOC, "alloc", CUDA_ERROR_OUT_OF_MEMORY, 0)                                                   \
  X(FREE, "free", CUDA_ERROR_INVALID_VALUE, 0)                                                     \
  X(HTOD, "htod", CUDA_ERROR_INVALID_VALUE, 0)                                                     \
  X(DTOH, "dtoh", CUDA_ERROR_INVALID_VALUE, 0)                                                     \
  X(DTOD, "dtod", CUDA_ERROR_INVALID_VALUE, 0)                                                     \
  X(MEMSET, "memset", CUDA_ERROR_INVALID_VALUE, 0)                                                 \
  X(LOAD, "load", CUDA_ERROR_INVALID_PTX, 0)                                                       \
  X(LINK, "link", CUDA_ERROR_INVALID_PTX, 0)                                                       \
  X(FUNCTION, "function", CUDA_ERROR_NOT_FOUND, 0)                                                 \
  X(ATTR, "attr", CUDA_ERROR_INVALID_VALUE, 0)                                                     \
  X(LAUNCH, "launch", CUDA_ERROR_LAUNCH_FAILED, 1)                                                 \
  X(SYNC, "sync", CUDA_ERROR_LAUNCH_FAILED, 1)                                                     \
  X(STREAM, "stream", CUDA_ERROR_INVALID_HANDLE, 0)                                                \
  X(EVENT, "event", CUDA_ERROR_INVALID_HANDLE, 0)

#define EMU_FAULT_ID(id, name, result, sticky) EMU_FAULT_##id,
enum { EMU_FAULT_LIST(EMU_FAULT_ID) EMU_FAULT_N, EMU_FAULT_NONE = -1 };
#undef EMU_FAULT_ID
#define EMU_FAULT_PER_CONTEXT EMU_FAULT_ALLOC

struct CUctx_st {
  int refs; /* primary context: retains; created context: 1 while it exists */
  CUresult sticky;
  struct CUmod_st *mods;
  struct CUstream_st *streams;
  struct CUevent_st *events;
  struct CUlinkState_st *links;
  unsigned long long calls[EMU_FAULT_N]; /* per-context kinds only */
};
struct CUmod_st {
  emu_module *m;
  struct CUmod_st *next;
  struct CUfunc_st *funcs;
};
struct CUfunc_st {
  emu_func *f;
  struct CUmod_st *mod;
};
struct CUstream_st {
  struct CUstream_st *next;
};
/* A link of one PTX input: the emulator's image is the PTX text itself. */
struct CUlinkState_st {
  struct CUlinkState_st *next;
  char *elog, *ilog; /* the logs given to cuLinkCreate */
  size_t elen, ilen;
  char *ptx;
};
struct CUevent_st {
  struct CUevent_st *next;
  unsigned flags;
  int recorded;
  double ms; /* host wall clock when recorded */
};

/* Takes the lock; CUDA_SUCCESS or why the call cannot run: not initialized, no usable current
 * context (when kind is a per-context kind), or an injected failure of call, with its message.
 * kind EMU_FAULT_NONE: a call that is never failed on purpose, but needs initialization. */
CUresult emu_enter(int kind, const char *call);
/* The same for cuInit and cuDriverGetVersion, which need no initialization; a cuInit made
 * while no context exists restarts the per-process failure counts. */
CUresult emu_enter_uninitialized(const char *call);
void emu_set_initialized(void);
/* The same for calls that need a current context but are never failed on purpose. */
CUresult emu_enter_ctx(void);
/* Releases the lock and returns rc. The thread's message stays only when this call failed and
 * set it: a failure the result says everything about leaves "". */
CUresult emu_leave(CUresult rc);
/* The calling thread's context (valid between emu_enter and emu_leave when it succeeded). */
struct CUctx_st *emu_current(void);
void emu_set_current(struct CUctx_st *c);
/* Is c a context that exists now? */
int emu_ctx_valid(const struct CUctx_st *c);
/* Frees everything a context owns (modules, memory, streams, events) and resets its counters. */
void emu_ctx_teardown(struct CUctx_st *c);
/* The thread's message for emuGetLastErrorMessage; also on stderr with JIT_EMU_VERBOSE. */
void emu_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Is f a function of a module of the current context (api_module.c)? */
int emu_func_valid(const struct CUfunc_st *f);
/* Is s a stream of the current context, or the NULL, legacy or per-thread stream
 * (api_stream.c)? */
int emu_stream_valid(CUstream s);
/* The host wall clock in milliseconds (events, module load time). */
double emu_now_ms(void);

#endif
