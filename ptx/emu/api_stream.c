/* Streams and events. Every launch and copy completes before its call returns, so a stream
 * orders only what is already ordered and synchronizing waits for nothing; an event records the
 * host's wall clock (CLOCK_MONOTONIC) when cuEventRecord is called. The time between two
 * events around a launch is therefore how long the emulator took to run it on this CPU: a
 * measured emulation time, not a model of the time a GPU would take. */
#include <stdlib.h>
#include "api.h"

int emu_stream_valid(CUstream s) {
  if (!s || s == (CUstream)0x1 || s == (CUstream)0x2) return 1; /* legacy, per-thread */
  for (const struct CUstream_st *t = emu_current()->streams; t; t = t->next)
    if (t == s) return 1;
  return 0;
}

EMU_EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  (void)Flags;
  CUresult rc = emu_enter(EMU_FAULT_STREAM, "cuStreamCreate");
  if (!rc && !phStream) rc = CUDA_ERROR_INVALID_VALUE;
  struct CUstream_st *s = rc ? NULL : calloc(1, sizeof *s);
  if (!rc && !s) rc = CUDA_ERROR_OUT_OF_MEMORY;
  if (!rc) {
    s->next = emu_current()->streams;
    emu_current()->streams = s;
    *phStream = s;
  }
  return emu_leave(rc);
}

/* Launches and copies complete before they return: a stream has nothing left to wait for. */
EMU_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  CUresult rc = emu_enter(EMU_FAULT_SYNC, "cuStreamSynchronize");
  if (!rc && !emu_stream_valid(hStream)) rc = CUDA_ERROR_INVALID_HANDLE;
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream) {
  CUresult rc = emu_enter_ctx();
  struct CUstream_st **pp = rc ? NULL : &emu_current()->streams;
  while (pp && *pp && *pp != hStream) pp = &(*pp)->next;
  if (!rc && (!hStream || !*pp)) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    *pp = hStream->next;
    free(hStream);
  }
  return emu_leave(rc);
}

/* ---------- events ---------- */

static struct CUevent_st **find_event(CUevent e) {
  struct CUevent_st **pp = &emu_current()->events;
  while (*pp && *pp != e) pp = &(*pp)->next;
  return e && *pp ? pp : NULL;
}

EMU_EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  CUresult rc = emu_enter(EMU_FAULT_EVENT, "cuEventCreate");
  if (!rc && (!phEvent || Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING)))
    rc = CUDA_ERROR_INVALID_VALUE;
  struct CUevent_st *e = rc ? NULL : calloc(1, sizeof *e);
  if (!rc && !e) rc = CUDA_ERROR_OUT_OF_MEMORY;
  if (!rc) {
    e->flags = Flags;
    e->next = emu_current()->events;
    emu_current()->events = e;
    *phEvent = e;
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  CUresult rc = emu_enter(EMU_FAULT_EVENT, "cuEventRecord");
  if (!rc && (!find_event(hEvent) || !emu_stream_valid(hStream))) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    hEvent->recorded = 1;
    hEvent->ms = emu_now_ms();
  }
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  CUresult rc = emu_enter(EMU_FAULT_EVENT, "cuEventSynchronize");
  if (!rc && !find_event(hEvent)) rc = CUDA_ERROR_INVALID_HANDLE;
  return emu_leave(rc);
}

/* CUDA 12.8's _v2 differs from the original only in what it promises about events recorded
 * in different contexts; here both are the same. */
static CUresult elapsed(float *ms, CUevent start, CUevent end) {
  if (!ms) return CUDA_ERROR_INVALID_VALUE;
  if (!find_event(start) || !find_event(end)) return CUDA_ERROR_INVALID_HANDLE;
  if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) {
    emu_set_error("cuEventElapsedTime: an event was created with CU_EVENT_DISABLE_TIMING");
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (!start->recorded || !end->recorded) {
    emu_set_error("cuEventElapsedTime: an event was never recorded");
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *ms = (float)(end->ms - start->ms);
  return CUDA_SUCCESS;
}

EMU_EXPORT CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart,
                                                  CUevent hEnd) {
  CUresult rc = emu_enter(EMU_FAULT_EVENT, "cuEventElapsedTime_v2");
  if (!rc) rc = elapsed(pMilliseconds, hStart, hEnd);
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  CUresult rc = emu_enter(EMU_FAULT_EVENT, "cuEventElapsedTime");
  if (!rc) rc = elapsed(pMilliseconds, hStart, hEnd);
  return emu_leave(rc);
}

EMU_EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent) {
  CUresult rc = emu_enter_ctx();
  struct CUevent_st **pp = rc ? NULL : find_event(hEvent);
  if (!rc && !pp) rc = CUDA_ERROR_INVALID_HANDLE;
  if (!rc) {
    *pp = hEvent->next;
    free(hEvent);
  }
  return emu_leave(rc);
}
