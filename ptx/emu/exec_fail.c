/* The message of a failed launch: kernel, PTX line, block and thread, then what happened. */
#include <stdarg.h>
#include <stdio.h>
#include "exec.h"

void emu_thread_coords(const ctx *c, uint32_t t, unsigned v[3]) {
  const unsigned *b = c->L->block;
  v[0] = t % b[0];
  v[1] = (t / b[0]) % b[1];
  v[2] = t / (b[0] * b[1]);
}

CUresult emu_fail(ctx *c, const warp *w, int lane, const emu_insn *in, CUresult rc, const char *fmt,
                  ...) {
  unsigned t[3] = {0, 0, 0};
  if (w) emu_thread_coords(c, w->tid0 + (uint32_t)lane, t);
  const uint32_t *cta = c->b->ctaid;
  int k = snprintf(c->L->msg, sizeof c->L->msg,
                   "kernel '%s', PTX line %d, block (%u,%u,%u), thread (%u,%u,%u): ", c->f->name,
                   in ? in->line : c->f->line, cta[0], cta[1], cta[2], t[0], t[1], t[2]);
  if (k < 0 || (size_t)k >= sizeof c->L->msg) return rc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->L->msg + k, sizeof c->L->msg - (size_t)k, fmt, ap);
  va_end(ap);
  return rc;
}
