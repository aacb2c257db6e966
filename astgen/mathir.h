/* IR arithmetic for the math expansions (astgen/mathexp.c, mathexp_log.c, mathexp_trig.c),
 * private to them: a builder that appends instructions to a block, one helper per operation
 * at double or S64 type, and the error-free transformations (two-sum, exact scaling) that
 * every family of functions uses. Everything computes in double precision. */
#ifndef SJ_MATHIR_H
#define SJ_MATHIR_H

#include <limits.h>
#include <string.h>

#include "astgen/ir.h"

/* The instructions replacing one MATH instruction, appended to out. */
typedef struct sj_mx {
  sj_ir_func *f;
  sj_ir_block out;
  int level, guard;
} sj_mx;
typedef sj_mx mx;

typedef sj_ir_val val;

static const val none = {SJ_V_NONE, SJ_IR_PRED, 0, 0, 0};

static inline sj_ir_ins *append(mx *x, sj_ir_op op, sj_ir_type type) {
  sj_ir_node *n = sj_ir_node_new(SJ_IR_INS);
  n->ins.op = op;
  n->ins.type = type;
  n->ins.guard = x->guard;
  sj_ir_block_push(&x->out, n);
  return &n->ins;
}

static inline val emit(mx *x, sj_ir_op op, sj_ir_type t, val a, val b, val c) {
  sj_ir_ins *ins = append(x, op, t);
  ins->dst = sj_ir_new_reg(x->f, op == SJ_IR_SETP ? SJ_IR_PRED : t, x->level);
  ins->a = a;
  ins->b = b;
  ins->c = c;
  return sj_ir_reg_val(x->f, ins->dst);
}

static inline val d(double v) {
  return sj_ir_float(SJ_IR_F64, v);
}

static inline val i64(long v) {
  return sj_ir_int(SJ_IR_S64, v);
}

#define OP2(name, op, t)                                                                           \
  static inline val name(mx *x, val a, val b) {                                                    \
    return emit(x, op, t, a, b, none);                                                             \
  }
OP2(add, SJ_IR_ADD, SJ_IR_F64)
OP2(sub, SJ_IR_SUB, SJ_IR_F64)
OP2(mul, SJ_IR_MUL, SJ_IR_F64)
OP2(divd, SJ_IR_DIV, SJ_IR_F64)
OP2(mind, SJ_IR_MIN, SJ_IR_F64)
OP2(maxd, SJ_IR_MAX, SJ_IR_F64)
OP2(iadd, SJ_IR_ADD, SJ_IR_S64)
OP2(isub, SJ_IR_SUB, SJ_IR_S64)
OP2(band, SJ_IR_BAND, SJ_IR_S64)
OP2(bor, SJ_IR_BOR, SJ_IR_S64)
OP2(shl, SJ_IR_SHL, SJ_IR_S64)
OP2(shr, SJ_IR_SHR, SJ_IR_S64)
OP2(pand, SJ_IR_AND, SJ_IR_PRED)
OP2(por, SJ_IR_OR, SJ_IR_PRED)

static inline val fma3(mx *x, val a, val b, val c) {
  return emit(x, SJ_IR_FMA, SJ_IR_F64, a, b, c);
}

static inline val neg(mx *x, val a) {
  return emit(x, SJ_IR_NEG, SJ_IR_F64, a, none, none);
}

static inline val fabsd(mx *x, val a) {
  return emit(x, SJ_IR_ABS, SJ_IR_F64, a, none, none);
}

static inline val pnot(mx *x, val a) {
  return emit(x, SJ_IR_NOT, SJ_IR_PRED, a, none, none);
}

static inline val cmp(mx *x, sj_ir_cmp c, val a, val b) {
  sj_ir_ins *ins = append(x, SJ_IR_SETP, a.type);
  ins->dst = sj_ir_new_reg(x->f, SJ_IR_PRED, x->level);
  ins->a = a;
  ins->b = b;
  ins->cmp = c;
  return sj_ir_reg_val(x->f, ins->dst);
}

/* p ? a : b */
static inline val sel(mx *x, val p, val a, val b) {
  return emit(x, SJ_IR_SELP, a.type, a, b, p);
}

static inline val cvt(mx *x, sj_ir_type to, val a) {
  return emit(x, SJ_IR_CVT, to, a, none, none);
}

static inline val bits(mx *x, val a) {
  return emit(x, SJ_IR_BITCAST, SJ_IR_S64, a, none, none);
}

static inline val from_bits(mx *x, val a) {
  return emit(x, SJ_IR_BITCAST, SJ_IR_F64, a, none, none);
}

/* floor, ceil and trunc: single PTX instructions, left as MATH */
static inline val native_d(mx *x, sj_ir_math m, val a) {
  sj_ir_ins *ins = append(x, SJ_IR_MATH, SJ_IR_F64);
  ins->dst = sj_ir_new_reg(x->f, SJ_IR_F64, x->level);
  ins->a = a;
  ins->imm = m;
  return sj_ir_reg_val(x->f, ins->dst);
}

static inline val trunc_d(mx *x, val a) {
  return native_d(x, SJ_MATH_TRUNC, a);
}

static inline val floor_d(mx *x, val a) {
  return native_d(x, SJ_MATH_FLOOR, a);
}

/* A register assigned more than once (by assign). */
static inline int var(mx *x, sj_ir_type t) {
  int r = sj_ir_new_reg(x->f, t, x->level);
  x->f->regs[r].is_var = 1;
  return r;
}

static inline void assign(mx *x, int var, val v) {
  sj_ir_ins *ins = append(x, SJ_IR_MOV, x->f->regs[var].type);
  ins->dst = var;
  ins->a = v;
}

static inline val is_nan(mx *x, val a) {
  return cmp(x, SJ_CMP_NE, a, a); /* NE is unordered: true for NaN only */
}

/* Where f(a) = a: NaN, and zeros that keep their sign. */
static inline val nan_or_zero(mx *x, val a) {
  return por(x, is_nan(x, a), cmp(x, SJ_CMP_EQ, a, d(0.0)));
}

/* The magnitude of a with the sign of s. */
static inline val copysign_d(mx *x, val a, val s) {
  val sign = band(x, bits(x, s), shl(x, i64(1), i64(63)));
  return from_bits(x, bor(x, band(x, bits(x, a), i64(LONG_MAX)), sign));
}

/* c[0] + z (c[1] + z (c[2] + ...)) */
static inline val horner(mx *x, val z, const double *c, int n) {
  val p = d(c[n - 1]);
  for (int i = n - 2; i >= 0; i--) p = fma3(x, p, z, d(c[i]));
  return p;
}

/* h + l = a + b exactly. */
static inline void two_sum(mx *x, val a, val b, val *h, val *l) {
  *h = add(x, a, b);
  val bb = sub(x, *h, a);
  *l = add(x, sub(x, a, sub(x, *h, bb)), sub(x, b, bb));
}

/* h + l = a + b exactly, |a| >= |b|. */
static inline void fast_two_sum(mx *x, val a, val b, val *h, val *l) {
  *h = add(x, a, b);
  *l = sub(x, b, sub(x, *h, a));
}

/* v * 2^k for an integer k in [-1100, 1100]: two exact factors, one rounding. */
static inline val scale(mx *x, val v, val k) {
  val k1 = shr(x, k, i64(1));
  val k2 = isub(x, k, k1);
  val f1 = from_bits(x, shl(x, iadd(x, k1, i64(1023)), i64(52)));
  val f2 = from_bits(x, shl(x, iadd(x, k2, i64(1023)), i64(52)));
  return mul(x, mul(x, v, f1), f2);
}

static const double SHIFT = 0x1.8p52; /* adding it rounds to an integer, kept in the low bits */

#define COUNT(a) (int)(sizeof a / sizeof *a)

/* The expansions of the families: exp, exp2, expm1, log, log2, log10, log1p, pow, sinh, cosh
 * and tanh (mathexp_log.c; precise: double, else float's looser needs), and sin, cos and tan
 * (mathexp_trig.c). */
sj_ir_val sj_mx_explog(sj_mx *x, sj_ir_math m, sj_ir_val a, sj_ir_val b, int precise);
sj_ir_val sj_mx_trig(sj_mx *x, sj_ir_math m, sj_ir_val a);

#endif
