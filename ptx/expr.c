/* Expressions: the isl AST's integer ones in 64 bits, and the user's with C's types. In
 * exact mode every float operation carries its IEEE rounding (.rn), fma and approximate
 * division only under fast math. */
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

static opnd iarg(ptx *x, __isl_keep isl_ast_expr *e, int i) {
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
  opnd o = sj_px_iexpr(x, a);
  isl_ast_expr_free(a);
  return o;
}

opnd sj_px_iexpr(ptx *x, __isl_keep isl_ast_expr *e) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
    isl_val *v = isl_ast_expr_get_val(e);
    opnd o = sj_px_imm(isl_val_get_num_si(v));
    isl_val_free(v);
    return o;
  }
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    int d = sj_ast_id_depth(e);
    if (!x->iter_off[d]) return sj_px_reg_opnd(B64, x->iter[d]);
    return sj_px_binop64(x, "add", sj_px_reg_opnd(B64, x->iter[d]), sj_px_imm(x->iter_off[d]));
  }
  opnd a, b, d;
  int n = isl_ast_expr_op_get_n_arg(e);
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_add:
    return sj_px_binop64(x, "add", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_sub:
    return sj_px_binop64(x, "sub", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_mul:
    return sj_px_binop64(x, "mul.lo", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_pdiv_q:
    return sj_px_binop64(x, "div", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r:
    return sj_px_binop64(x, "rem", iarg(x, e, 0), iarg(x, e, 1));
  case isl_ast_expr_op_minus:
    a = sj_px_in_reg64(x, iarg(x, e, 0));
    d = sj_px_fresh(x, B64);
    sj_px_emit(x, "neg.s64 %s, %s", d.s, a.s);
    return d;
  case isl_ast_expr_op_fdiv_q: { /* floor division by a positive constant */
    a = iarg(x, e, 0);
    b = iarg(x, e, 1);
    d = sj_px_binop64(x, "div", a, b);
    opnd r = sj_px_binop64(x, "rem", a, b);
    opnd p = sj_px_fresh(x, PRED);
    sj_px_emit(x, "setp.lt.s64 %s, %s, 0", p.s, r.s);
    sj_px_emit(x, "@%s sub.s64 %s, %s, 1", p.s, d.s, d.s);
    return d;
  }
  case isl_ast_expr_op_min:
  case isl_ast_expr_op_max: {
    const char *op = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_min ? "min" : "max";
    d = iarg(x, e, 0);
    for (int i = 1; i < n; i++) d = sj_px_binop64(x, op, d, iarg(x, e, i));
    return d;
  }
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select: {
    isl_ast_expr *c = isl_ast_expr_op_get_arg(e, 0);
    opnd p = sj_px_icond(x, c);
    isl_ast_expr_free(c);
    a = iarg(x, e, 1);
    b = iarg(x, e, 2);
    d = sj_px_fresh(x, B64);
    sj_px_emit(x, "selp.s64 %s, %s, %s, %s", d.s, a.s, b.s, p.s);
    return d;
  }
  default: { /* a comparison used as a value */
    opnd p = sj_px_icond(x, e);
    d = sj_px_fresh(x, B64);
    sj_px_emit(x, "selp.s64 %s, 1, 0, %s", d.s, p.s);
    return d;
  }
  }
}

opnd sj_px_icond(ptx *x, __isl_keep isl_ast_expr *e) {
  opnd p = sj_px_fresh(x, PRED);
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) {
    sj_px_emit(x, "setp.ne.s64 %s, %s, 0", p.s, sj_px_in_reg64(x, sj_px_iexpr(x, e)).s);
    return p;
  }
  const char *cmp = NULL, *logic = NULL;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_eq:
    cmp = "eq";
    break;
  case isl_ast_expr_op_le:
    cmp = "le";
    break;
  case isl_ast_expr_op_lt:
    cmp = "lt";
    break;
  case isl_ast_expr_op_ge:
    cmp = "ge";
    break;
  case isl_ast_expr_op_gt:
    cmp = "gt";
    break;
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    logic = "and";
    break;
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    logic = "or";
    break;
  default:
    break;
  }
  if (cmp) {
    opnd a = sj_px_in_reg64(x, iarg(x, e, 0)), b = iarg(x, e, 1);
    sj_px_emit(x, "setp.%s.s64 %s, %s, %s", cmp, p.s, a.s, b.s);
  } else if (logic) {
    isl_ast_expr *l = isl_ast_expr_op_get_arg(e, 0), *r = isl_ast_expr_op_get_arg(e, 1);
    opnd a = sj_px_icond(x, l), b = sj_px_icond(x, r);
    isl_ast_expr_free(l);
    isl_ast_expr_free(r);
    sj_px_emit(x, "%s.pred %s, %s, %s", logic, p.s, a.s, b.s);
  } else {
    sj_px_emit(x, "setp.ne.s64 %s, %s, 0", p.s, sj_px_in_reg64(x, sj_px_iexpr(x, e)).s);
  }
  return p;
}

static int has_access(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (has_access(e->args[i])) return 1;
  return 0;
}

static opnd literal(const sj_expr *e) {
  opnd o;
  if (e->kind == SJ_E_INT) return sj_px_imm(e->ival);
  if (e->type == SJ_TY_FLOAT) {
    float f = (float)e->fval;
    unsigned bits;
    memcpy(&bits, &f, 4);
    snprintf(o.s, sizeof o.s, "0f%08X", bits);
  } else {
    unsigned long long bits;
    memcpy(&bits, &e->fval, 8);
    snprintf(o.s, sizeof o.s, "0d%016llX", bits);
  }
  return o;
}

/* A value in a register (immediates must be moved for some instructions). */
opnd sj_px_in_reg(ptx *x, opnd v, sj_type t) {
  if (!sj_px_is_imm(v)) return v;
  opnd r = sj_px_fresh(x, sj_px_cls_of(t));
  sj_px_emit(x, "mov.%s %s, %s", sj_px_ty(t), r.s, v.s);
  return r;
}

static opnd convert(ptx *x, opnd v, sj_type from, sj_type to) {
  if (from == to) return v;
  opnd d = sj_px_fresh(x, sj_px_cls_of(to));
  int ffrom = sj_type_is_float(from), fto = sj_type_is_float(to);
  const char *rnd = "";
  if (!ffrom && fto) rnd = ".rn";                             /* int to float: nearest */
  if (ffrom && !fto) rnd = ".rzi";                            /* float to int: truncate, as C */
  if (from == SJ_TY_DOUBLE && to == SJ_TY_FLOAT) rnd = ".rn"; /* narrowing */
  sj_px_emit(x, "cvt%s.%s.%s %s, %s", rnd, sj_px_ty(to), sj_px_ty(from), d.s,
             sj_px_in_reg(x, v, from).s);
  return d;
}

static opnd ucond(ptx *x, const sj_expr *e);

static opnd compare(ptx *x, const sj_expr *e) {
  static const char *const names[] = {"lt", "le", "gt", "ge", "eq", "ne"};
  sj_type t = e->args[0]->type;
  const char *cmp = names[e->op - SJ_OP_LT];
  if (sj_type_is_float(t) && e->op == SJ_OP_NE) cmp = "neu"; /* C's != holds for NaN */
  opnd a = sj_px_uval(x, e->args[0]), b = sj_px_uval(x, e->args[1]);
  opnd p = sj_px_fresh(x, PRED);
  sj_px_emit(x, "setp.%s.%s %s, %s, %s", cmp, sj_px_ty(t), p.s, sj_px_in_reg(x, a, t).s, b.s);
  return p;
}

/* && and ||: the right side only where C evaluates it when it reads memory. */
static opnd logic(ptx *x, const sj_expr *e) {
  int is_and = e->op == SJ_OP_AND;
  opnd l = ucond(x, e->args[0]);
  opnd p = sj_px_fresh(x, PRED);
  if (!has_access(e->args[1])) {
    opnd r = ucond(x, e->args[1]);
    sj_px_emit(x, "%s.pred %s, %s, %s", is_and ? "and" : "or", p.s, l.s, r.s);
    return p;
  }
  int skip = sj_px_new_label(x);
  region saved = sj_px_enter(x);
  sj_px_emit(x, "mov.pred %s, %s", p.s, l.s);
  sj_px_emit(x, "@%s%s bra $L__%s_%d", is_and ? "!" : "", l.s, x->kname, skip);
  opnd r = ucond(x, e->args[1]);
  sj_px_emit(x, "mov.pred %s, %s", p.s, r.s);
  sj_px_place_label(x, skip);
  sj_px_leave(x, &saved);
  return p;
}

static opnd ucond(ptx *x, const sj_expr *e) {
  if (e->kind == SJ_E_BINARY && e->op >= SJ_OP_LT && e->op <= SJ_OP_NE) return compare(x, e);
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR)) return logic(x, e);
  if (e->kind == SJ_E_UNARY && e->op == '!') {
    opnd a = ucond(x, e->args[0]), p = sj_px_fresh(x, PRED);
    sj_px_emit(x, "not.pred %s, %s", p.s, a.s);
    return p;
  }
  opnd v = sj_px_uval(x, e), p = sj_px_fresh(x, PRED);
  sj_px_emit(x, "setp.ne.%s %s, %s, 0", sj_px_ty(e->type), p.s, sj_px_in_reg(x, v, e->type).s);
  return p;
}

static int is_mul(const sj_expr *e, sj_type t) {
  return e->kind == SJ_E_BINARY && e->op == SJ_OP_MUL && e->type == t;
}

/* Fast math: a * b + c, c + a * b and a * b - c as one fma (one rounding instead of two). */
static int contract(ptx *x, const sj_expr *e, opnd *out) {
  sj_type t = e->type;
  if (!x->fast || !sj_type_is_float(t) || (e->op != SJ_OP_ADD && e->op != SJ_OP_SUB)) return 0;
  int left = is_mul(e->args[0], t);
  if (!left && !(e->op == SJ_OP_ADD && is_mul(e->args[1], t))) return 0;
  const sj_expr *mul = e->args[left ? 0 : 1], *other = e->args[left ? 1 : 0];
  opnd a = sj_px_in_reg(x, sj_px_uval(x, mul->args[0]), t), b = sj_px_uval(x, mul->args[1]);
  opnd c = sj_px_uval(x, other);
  if (e->op == SJ_OP_SUB) {
    opnd n = sj_px_fresh(x, sj_px_cls_of(t));
    sj_px_emit(x, "neg.%s %s, %s", sj_px_ty(t), n.s, sj_px_in_reg(x, c, t).s);
    c = n;
  }
  *out = sj_px_fresh(x, sj_px_cls_of(t));
  sj_px_emit(x, "fma.rn.%s %s, %s, %s, %s", sj_px_ty(t), out->s, a.s, b.s, c.s);
  return 1;
}

static opnd arith(ptx *x, const sj_expr *e) {
  sj_type t = e->type;
  int fl = sj_type_is_float(t);
  opnd fused;
  if (contract(x, e, &fused)) return fused;
  const char *op;
  switch (e->op) {
  case SJ_OP_ADD:
    op = fl ? "add.rn" : "add";
    break;
  case SJ_OP_SUB:
    op = fl ? "sub.rn" : "sub";
    break;
  case SJ_OP_MUL:
    op = fl ? "mul.rn" : "mul.lo";
    break;
  case SJ_OP_DIV:
    op = fl ? "div.rn" : "div";
    break;
  default:
    op = "rem";
    break;
  }
  opnd a = sj_px_uval(x, e->args[0]), b = sj_px_uval(x, e->args[1]);
  if (sj_px_is_imm(a) && !sj_px_is_imm(b) && (e->op == SJ_OP_ADD || e->op == SJ_OP_MUL)) {
    opnd swap = a; /* exact: IEEE and two's complement + and * commute */
    a = b, b = swap;
  }
  opnd d = sj_px_fresh(x, sj_px_cls_of(t));
  sj_px_emit(x, "%s.%s %s, %s, %s", op, sj_px_ty(t), d.s, sj_px_in_reg(x, a, t).s, b.s);
  return d;
}

static opnd select_value(ptx *x, const sj_expr *e) {
  sj_type t = e->type;
  opnd p = ucond(x, e->args[0]);
  opnd d = sj_px_fresh(x, sj_px_cls_of(t));
  if (!has_access(e->args[1]) && !has_access(e->args[2])) {
    opnd a = sj_px_uval(x, e->args[1]), b = sj_px_uval(x, e->args[2]);
    sj_px_emit(x, "selp.%s %s, %s, %s, %s", sj_px_ty(t), d.s, a.s, b.s, p.s);
    return d;
  }
  /* only the side C evaluates may read memory */
  int other = sj_px_new_label(x), done = sj_px_new_label(x);
  region saved = sj_px_enter(x);
  sj_px_emit(x, "@!%s bra $L__%s_%d", p.s, x->kname, other);
  sj_px_emit(x, "mov.%s %s, %s", sj_px_ty(t), d.s, sj_px_uval(x, e->args[1]).s);
  sj_px_emit(x, "bra.uni $L__%s_%d", x->kname, done);
  sj_px_leave(x, &saved);
  sj_px_place_label(x, other);
  sj_px_emit(x, "mov.%s %s, %s", sj_px_ty(t), d.s, sj_px_uval(x, e->args[2]).s);
  sj_px_place_label(x, done);
  sj_px_leave(x, &saved);
  return d;
}

static opnd call(ptx *x, const sj_expr *e) {
  sj_type t = e->type;
  opnd d = sj_px_fresh(x, sj_px_cls_of(t));
  opnd a = sj_px_in_reg(x, sj_px_uval(x, e->args[0]), t);
  switch (e->op) {
  case SJ_FN_SQRT:
  case SJ_FN_SQRTF:
    sj_px_emit(x, "sqrt.rn.%s %s, %s", sj_px_ty(t), d.s, a.s);
    break;
  case SJ_FN_FABS:
  case SJ_FN_FABSF:
    sj_px_emit(x, "abs.%s %s, %s", sj_px_ty(t), d.s, a.s);
    break;
  default: {
    const char *op = e->op == SJ_FN_FMIN || e->op == SJ_FN_FMINF ? "min" : "max";
    sj_px_emit(x, "%s.%s %s, %s, %s", op, sj_px_ty(t), d.s, a.s, sj_px_uval(x, e->args[1]).s);
  }
  }
  return d;
}

opnd sj_px_uval(ptx *x, const sj_expr *e) {
  opnd d;
  switch (e->kind) {
  case SJ_E_INT:
  case SJ_E_FLOAT:
    return literal(e);
  case SJ_E_VAR:
    switch (e->sym->kind) {
    case SJ_SYM_SHAPE:
      return sj_px_imm(x->m->shape[e->sym->param]);
    case SJ_SYM_SCALAR:
      return sj_px_reg_opnd(sj_px_cls_of(e->type), x->scalar[e->sym->param]);
    case SJ_SYM_LOCAL:
      return sj_px_reg_opnd(sj_px_cls_of(e->type), x->local[e->sym->id]);
    default: { /* an iterator: an int in C */
      opnd v = sj_px_atom64(x, e), d32 = sj_px_fresh(x, B32);
      sj_px_emit(x, "cvt.s32.s64 %s, %s", d32.s, v.s);
      return d32;
    }
    }
  case SJ_E_INDEX: {
    char where[96];
    sj_px_address(x, e, where, sizeof where);
    d = sj_px_fresh(x, sj_px_cls_of(e->type));
    sj_px_emit(x, "ld.global%s.%s %s, %s", x->written[e->sym->id] ? "" : ".nc", sj_px_ty(e->type),
               d.s, where);
    return d;
  }
  case SJ_E_UNARY:
    if (e->op == '-') {
      opnd a = sj_px_in_reg(x, sj_px_uval(x, e->args[0]), e->type);
      d = sj_px_fresh(x, sj_px_cls_of(e->type));
      sj_px_emit(x, "neg.%s %s, %s", sj_px_ty(e->type), d.s, a.s);
      return d;
    }
    break; /* ! is a condition */
  case SJ_E_BINARY:
    if (e->op <= SJ_OP_REM) return arith(x, e);
    break;
  case SJ_E_COND:
    return select_value(x, e);
  case SJ_E_CAST:
    return convert(x, sj_px_uval(x, e->args[0]), e->args[0]->type, e->type);
  case SJ_E_CALL:
    return call(x, e);
  }
  opnd p = ucond(x, e); /* a condition as an int value */
  d = sj_px_fresh(x, sj_px_cls_of(e->type));
  sj_px_emit(x, "selp.%s %s, 1, 0, %s", sj_px_ty(e->type), d.s, p.s);
  return d;
}
