/* Registers, operands and the text of instructions. */
#include "ptx/print.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"
#include "base/buf.h"

const char *const sj_px_reg_prefix[NCLASS] = {"%p", "%r", "%rd", "%f", "%fd"};
const char *const sj_px_reg_type[NCLASS] = {".pred", ".b32", ".b64", ".f32", ".f64"};

void sj_px_emit(ptx *x, const char *fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  sj_buf_printf(&x->body, "\t%s;\n", line);
}

int sj_px_new_label(ptx *x) {
  return x->nlabel++;
}
void sj_px_place_label(ptx *x, int l) {
  sj_buf_printf(&x->body, "$L__%s_%d:\n", x->kname, l);
}

int sj_px_new_reg(ptx *x, int cls) {
  return ++x->nreg[cls];
}

opnd sj_px_reg_opnd(int cls, int n) {
  opnd o;
  snprintf(o.s, sizeof o.s, "%s%d", sj_px_reg_prefix[cls], n);
  return o;
}

opnd sj_px_fresh(ptx *x, int cls) {
  return sj_px_reg_opnd(cls, sj_px_new_reg(x, cls));
}

opnd sj_px_imm(long v) {
  opnd o;
  snprintf(o.s, sizeof o.s, "%ld", v);
  return o;
}

int sj_px_is_imm(opnd o) {
  return o.s[0] != '%';
}

opnd sj_px_in_reg64(ptx *x, opnd v) {
  if (!sj_px_is_imm(v)) return v;
  opnd r = sj_px_fresh(x, B64);
  sj_px_emit(x, "mov.b64 %s, %s", r.s, v.s);
  return r;
}

opnd sj_px_binop64(ptx *x, const char *op, opnd a, opnd b) {
  int commutes =
      !strcmp(op, "add") || !strcmp(op, "mul.lo") || !strcmp(op, "min") || !strcmp(op, "max");
  if (sj_px_is_imm(a) && commutes && !sj_px_is_imm(b)) {
    opnd t = a;
    a = b, b = t;
  }
  a = sj_px_in_reg64(x, a);
  opnd d = sj_px_fresh(x, B64);
  sj_px_emit(x, "%s.s64 %s, %s, %s", op, d.s, a.s, b.s);
  return d;
}

int sj_px_cls_of(sj_type t) {
  switch (t) {
  case SJ_TY_INT:
    return B32;
  case SJ_TY_LONG:
    return B64;
  case SJ_TY_FLOAT:
    return F32;
  default:
    return F64;
  }
}

const char *sj_px_ty(sj_type t) {
  switch (t) {
  case SJ_TY_INT:
    return "s32";
  case SJ_TY_LONG:
    return "s64";
  case SJ_TY_FLOAT:
    return "f32";
  default:
    return "f64";
  }
}

int sj_px_size_of(sj_type t) {
  return t == SJ_TY_INT || t == SJ_TY_FLOAT ? 4 : 8;
}

opnd *sj_px_find_memo(ptx *x, const char *key) {
  for (int i = 0; i < x->nmemos; i++)
    if (!strcmp(x->memos[i].key, key)) return &x->memos[i].val;
  return NULL;
}

void sj_px_add_memo(ptx *x, const char *key, opnd v) {
  x->memos = realloc(x->memos, (x->nmemos + 1) * sizeof *x->memos);
  snprintf(x->memos[x->nmemos].key, sizeof x->memos[x->nmemos].key, "%s", key);
  x->memos[x->nmemos++].val = v;
}

region sj_px_enter(const ptx *x) {
  region r;
  r.nmemos = x->nmemos;
  memcpy(r.call_iter, x->call_iter, sizeof r.call_iter);
  return r;
}

void sj_px_leave(ptx *x, const region *r) {
  x->nmemos = r->nmemos;
  memcpy(x->call_iter, r->call_iter, sizeof r->call_iter);
}
