/* Contexts, the calling thread's current context and message, and failure injection.
 *
 * Contexts: the device's primary context (retained and released, torn down when the last
 * retain is released) and up to 64 created ones. A launch that fails a strict check leaves its
 * context in a sticky error state until it is torn down, as on a GPU.
 *
 * Messages: every failure leaves a message for emuGetLastErrorMessage (per thread); it goes to
 * stderr as well only when JIT_EMU_VERBOSE is set to something other than 0. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "api.h"

enum { MAX_CONTEXTS = 64 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;
static struct CUctx_st primary;
static struct CUctx_st *created[MAX_CONTEXTS];
static unsigned long long process_calls[EMU_FAULT_PER_CONTEXT];
static __thread struct CUctx_st *current;
static __thread char last_msg[4096];
static __thread int msg_set; /* a message was set by the running call */

#define FAULT_NAME(id, name, result, sticky) name,
static const char *const fault_names[] = {EMU_FAULT_LIST(FAULT_NAME)};
#undef FAULT_NAME
#define FAULT_RESULT(id, name, result, sticky) result,
static const CUresult fault_results[] = {EMU_FAULT_LIST(FAULT_RESULT)};
#undef FAULT_RESULT
#define FAULT_STICKY(id, name, result, sticky) sticky,
static const int fault_sticky[] = {EMU_FAULT_LIST(FAULT_STICKY)};
#undef FAULT_STICKY

EMU_EXPORT const char *emuGetLastErrorMessage(void) {
  return last_msg;
}

void emu_set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_msg, sizeof last_msg, fmt, ap);
  va_end(ap);
  msg_set = 1;
  const char *v = getenv("JIT_EMU_VERBOSE");
  if (v && *v && strcmp(v, "0")) fprintf(stderr, "stenciljit emulator: %s\n", last_msg);
}

double emu_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int emu_ctx_valid(const struct CUctx_st *c) {
  if (!c) return 0;
  if (c == &primary) return primary.refs > 0;
  for (int k = 0; k < MAX_CONTEXTS; k++)
    if (created[k] == c) return 1;
  return 0;
}

static int any_context(void) {
  if (primary.refs > 0) return 1;
  for (int k = 0; k < MAX_CONTEXTS; k++)
    if (created[k]) return 1;
  return 0;
}

struct CUctx_st *emu_current(void) {
  return current;
}

void emu_set_current(struct CUctx_st *c) {
  current = c;
}

/* JIT_EMU_FAIL=alloc:3,load:1 -> is n the number of a call of this kind to fail? */
static int listed(const char *kind, unsigned long long n) {
  const char *e = getenv("JIT_EMU_FAIL");
  if (!e) return 0;
  size_t kl = strlen(kind);
  for (const char *p = e; *p;) {
    if (!strncmp(p, kind, kl) && p[kl] == ':') {
      char *end;
      if (strtoull(p + kl + 1, &end, 10) == n) return 1;
      p = end;
    }
    while (*p && *p != ',') p++;
    if (*p == ',') p++;
  }
  return 0;
}

static CUresult inject(int kind, const char *call) {
  unsigned long long *n =
      kind < EMU_FAULT_PER_CONTEXT ? &process_calls[kind] : &current->calls[kind];
  if (!listed(fault_names[kind], ++*n)) return CUDA_SUCCESS;
  emu_set_error("%s: injected failure (JIT_EMU_FAIL=%s:%llu)", call, fault_names[kind], *n);
  if (fault_sticky[kind]) current->sticky = fault_results[kind];
  return fault_results[kind];
}

static CUresult need_context(void) {
  if (!emu_ctx_valid(current)) return CUDA_ERROR_INVALID_CONTEXT;
  return current->sticky;
}

CUresult emu_enter(int kind, const char *call) {
  pthread_mutex_lock(&lock);
  msg_set = 0;
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUresult rc = kind >= EMU_FAULT_PER_CONTEXT ? need_context() : CUDA_SUCCESS;
  if (!rc && kind != EMU_FAULT_NONE) rc = inject(kind, call);
  return rc;
}

CUresult emu_enter_uninitialized(const char *call) {
  pthread_mutex_lock(&lock);
  msg_set = 0;
  if (!strcmp(call, "cuInit") && !any_context())
    memset(process_calls, 0, sizeof process_calls); /* a fresh start: count from 1 */
  return inject(EMU_FAULT_INIT, call);
}

void emu_set_initialized(void) {
  initialized = 1;
}

CUresult emu_enter_ctx(void) {
  pthread_mutex_lock(&lock);
  msg_set = 0;
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return need_context();
}

CUresult emu_leave(CUresult rc) {
  if (rc == CUDA_SUCCESS || !msg_set) last_msg[0] = 0;
  pthread_mutex_unlock(&lock);
  return rc;
}

void emu_ctx_teardown(struct CUctx_st *c) {
  while (c->mods) {
    struct CUmod_st *m = c->mods;
    c->mods = m->next;
    emu_module_free(m->m);
    free(m->funcs);
    free(m);
  }
  while (c->streams) {
    struct CUstream_st *s = c->streams;
    c->streams = s->next;
    free(s);
  }
  while (c->events) {
    struct CUevent_st *e = c->events;
    c->events = e->next;
    free(e);
  }
  while (c->links) {
    struct CUlinkState_st *k = c->links;
    c->links = k->next;
    free(k->ptx);
    free(k);
  }
  emu_mem_free_owner(c);
  c->sticky = CUDA_SUCCESS;
  memset(c->calls, 0, sizeof c->calls);
}

/* ---------- entry points ---------- */

EMU_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  CUresult rc = emu_enter(EMU_FAULT_CTX, "cuDevicePrimaryCtxRetain");
  if (!rc && dev != 0) rc = CUDA_ERROR_INVALID_DEVICE;
  if (!rc && !pctx) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) {
    primary.refs++;
    *pctx = &primary;
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  CUresult rc = emu_enter(EMU_FAULT_NONE, "cuDevicePrimaryCtxRelease");
  if (!rc && dev != 0) rc = CUDA_ERROR_INVALID_DEVICE;
  if (!rc && primary.refs <= 0) rc = CUDA_ERROR_INVALID_CONTEXT;
  if (!rc && --primary.refs == 0) emu_ctx_teardown(&primary);
  return emu_leave(rc);
}

/* Drivers before CUDA 11 exported only this name; the semantics are the same. */
EMU_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  return cuDevicePrimaryCtxRelease_v2(dev);
}

static CUresult create(CUcontext *pctx, CUdevice dev) {
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!pctx) return CUDA_ERROR_INVALID_VALUE;
  int k = 0;
  while (k < MAX_CONTEXTS && created[k]) k++;
  struct CUctx_st *c = k < MAX_CONTEXTS ? calloc(1, sizeof *c) : NULL;
  if (!c) {
    emu_set_error("cuCtxCreate: no room for a context (%d exist at most)", MAX_CONTEXTS);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  c->refs = 1;
  created[k] = c;
  current = c;
  *pctx = c;
  return CUDA_SUCCESS;
}

EMU_EXPORT CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  (void)flags; /* scheduling flags: every call is synchronous here */
  CUresult rc = emu_enter(EMU_FAULT_CTX, "cuCtxCreate_v2");
  if (!rc) rc = create(pctx, dev);
  return emu_leave(rc);
}

/* CUDA 13's cuCtxCreate. Execution-affinity and CIG parameters have no meaning here. */
EMU_EXPORT CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                           unsigned int flags, CUdevice dev) {
  (void)flags;
  CUresult rc = emu_enter(EMU_FAULT_CTX, "cuCtxCreate_v4");
  if (!rc && ctxCreateParams) {
    emu_set_error("cuCtxCreate_v4: context creation parameters (execution affinity, CIG) are "
                  "not supported; pass NULL");
    rc = CUDA_ERROR_NOT_SUPPORTED;
  }
  if (!rc) rc = create(pctx, dev);
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) {
  CUresult rc = emu_enter(EMU_FAULT_NONE, "cuCtxDestroy_v2");
  int k = 0;
  while (k < MAX_CONTEXTS && (!ctx || created[k] != ctx)) k++;
  if (!rc && k == MAX_CONTEXTS) rc = CUDA_ERROR_INVALID_CONTEXT;
  if (!rc) {
    emu_ctx_teardown(ctx);
    created[k] = NULL;
    free(ctx);
    if (current == ctx) current = NULL;
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  CUresult rc = emu_enter(EMU_FAULT_CTX, "cuCtxSetCurrent");
  if (!rc && ctx && !emu_ctx_valid(ctx)) rc = CUDA_ERROR_INVALID_CONTEXT;
  if (!rc) current = ctx;
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) {
  CUresult rc = emu_enter(EMU_FAULT_NONE, "cuCtxGetCurrent");
  if (!rc && !pctx) rc = CUDA_ERROR_INVALID_VALUE;
  if (!rc) *pctx = emu_ctx_valid(current) ? current : NULL;
  return emu_leave(rc);
}

/* Launches run to completion before they return: there is nothing to wait for, only the
 * context's sticky error to report. */
EMU_EXPORT CUresult CUDAAPI cuCtxSynchronize(void) {
  CUresult rc = emu_enter(EMU_FAULT_SYNC, "cuCtxSynchronize");
  return emu_leave(rc);
}
