/* The math library for targets that have none (PTX): each SJ_IR_MATH instruction but
 * floor, ceil and trunc (single PTX instructions) becomes IR arithmetic in its place.
 *
 * Everything is computed in double precision; the float functions convert their argument,
 * run the double code and round once at the end, which makes them correctly rounded but
 * where the true result lies within a few double ULP of a midpoint between two floats. The
 * double functions reduce the argument exactly (fma; Payne-Hanek for large sines), carry the
 * reduced argument and the logarithm as double-doubles, evaluate Taylor polynomials of
 * enough terms that truncation stays below 2^-60 relative, and end with one rounding of note
 * (exp: 1 + s split exactly, then the tail; log: 2 atanh(f / (2 + f)) with its cube in
 * double-double). doc/math.md states the error bounds, which tests/math_ulp_test.c checks
 * against long double references on the emulator. Special values (NaN, infinities, zeros,
 * subnormals) follow C99 Annex F, selected without branches; fmod has a loop, and sines of
 * arguments beyond 2^30 a branch. */
#include "astgen/mathir.h"

#include <stdlib.h>

/* round: half away from zero, from trunc. */
static val round_d(mx *x, val a) {
  val t = trunc_d(x, a);
  val up = cmp(x, SJ_CMP_GE, fabsd(x, sub(x, a, t)), d(0.5));
  return sel(x, up, add(x, t, copysign_d(x, d(1.0), a)), t);
}

/* --- fmod: exact, by a loop that takes up to 51 bits of the quotient at a time --- */

/* The exponent of a > 0 (subnormals normalized), as an S64. */
static val exponent(mx *x, val a) {
  val tiny = cmp(x, SJ_CMP_LT, a, d(0x1p-1022));
  val b = bits(x, sel(x, tiny, mul(x, a, d(0x1p54)), a));
  val e = band(x, shr(x, b, i64(52)), i64(0x7ff));
  return sel(x, tiny, isub(x, e, i64(54)), e);
}

static val fmod_d(mx *x, val a, val b) {
  val ab = fabsd(x, b);
  int r = var(x, SJ_IR_F64);
  assign(x, r, fabsd(x, a));
  val eb = exponent(x, ab);
  /* loop { if (!(r >= |b|)) break; ... } at most 45 times (2100 bits, 51 a time) */
  sj_ir_node *loop = sj_ir_node_new(SJ_IR_LOOP);
  loop->iter = var(x, SJ_IR_S32);
  x->f->regs[loop->iter].is_iter = 1;
  loop->init = sj_ir_int(SJ_IR_S32, 0);
  loop->step = sj_ir_int(SJ_IR_S32, 1);
  sj_ir_block_push(&x->out, loop);
  sj_ir_block outer = x->out;
  int level = x->level++;
  memset(&x->out, 0, sizeof x->out);
  val rv = sj_ir_reg_val(x->f, r);
  loop->cond = pand(x, cmp(x, SJ_CMP_GE, rv, ab),
                    cmp(x, SJ_CMP_LT, sj_ir_reg_val(x->f, loop->iter), sj_ir_int(SJ_IR_S32, 48)));
  loop->head = x->out;
  memset(&x->out, 0, sizeof x->out);
  /* |b| 2^s, s = max(0, e_r - e_b - 51): within 2^52 of r, exact (two factors for subnormals) */
  val s =
      emit(x, SJ_IR_MAX, SJ_IR_S64, isub(x, isub(x, exponent(x, rv), eb), i64(51)), i64(0), none);
  val bs = scale(x, ab, s);
  val qt = trunc_d(x, divd(x, rv, bs));
  val rem = fma3(x, neg(x, qt), bs, rv); /* exact: in (-bs, bs) */
  assign(x, r, sel(x, cmp(x, SJ_CMP_LT, rem, d(0.0)), add(x, rem, bs), rem));
  loop->body = x->out;
  x->out = outer;
  x->level = level;
  val v = copysign_d(x, rv, a);
  val bad = por(x, pnot(x, cmp(x, SJ_CMP_LT, fabsd(x, a), d(__builtin_inf()))),
                cmp(x, SJ_CMP_EQ, b, d(0.0)));
  v = sel(x, bad, d(__builtin_nan("")), v);
  return sel(x, por(x, is_nan(x, a), is_nan(x, b)), add(x, a, b), v);
}

/* --- the pass --- */

static val expand(mx *x, sj_ir_math m, val a, val b, int precise) {
  switch (m) {
  case SJ_MATH_SIN:
  case SJ_MATH_COS:
  case SJ_MATH_TAN:
    return sj_mx_trig(x, m, a);
  case SJ_MATH_ROUND:
    return round_d(x, a);
  case SJ_MATH_FMOD:
    return fmod_d(x, a, b);
  case SJ_MATH_COPYSIGN: /* exact in double, and so for floats */
    return copysign_d(x, a, b);
  default:
    return sj_mx_explog(x, m, a, b, precise);
  }
}

static int native(long m) {
  return m == SJ_MATH_FLOOR || m == SJ_MATH_CEIL || m == SJ_MATH_TRUNC;
}

/* The nodes that compute ins (a MATH instruction) into its destination. */
static sj_ir_block replacement(sj_ir_func *f, const sj_ir_ins *ins) {
  mx x;
  memset(&x, 0, sizeof x);
  x.f = f;
  x.level = f->regs[ins->dst].level;
  x.guard = ins->guard;
  int single = ins->type == SJ_IR_F32;
  val a = single ? cvt(&x, SJ_IR_F64, ins->a) : ins->a;
  val b = ins->b;
  if (single && b.kind != SJ_V_NONE) b = cvt(&x, SJ_IR_F64, b);
  val v = expand(&x, (sj_ir_math)ins->imm, a, b, !single);
  if (single) v = cvt(&x, SJ_IR_F32, v);
  sj_ir_ins *mov = append(&x, SJ_IR_MOV, ins->type);
  mov->dst = ins->dst;
  mov->a = v;
  return x.out;
}

static void expand_block(sj_ir_func *f, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
      for (int k = 0; k < 5; k++) expand_block(f, blocks[k]);
      continue;
    }
    if (n->ins.op != SJ_IR_MATH || native(n->ins.imm)) continue;
    sj_ir_block rep = replacement(f, &n->ins);
    sj_ir_node_free(n);
    b->v[i] = rep.v[0];
    for (int k = 1; k < rep.n; k++) sj_ir_block_insert(b, i + k, rep.v[k]);
    free(rep.v);
    i += rep.n - 1;
  }
}

void sj_ir_expand_math(sj_ir_func *f) {
  expand_block(f, &f->body);
}
