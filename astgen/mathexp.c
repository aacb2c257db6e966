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
#include "astgen/ir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The instructions replacing one MATH instruction, appended to out. */
typedef struct mx {
  sj_ir_func *f;
  sj_ir_block out;
  int level, guard;
} mx;

typedef sj_ir_val val;

static const val none = {SJ_V_NONE, SJ_IR_PRED, 0, 0, 0};

static sj_ir_ins *append(mx *x, sj_ir_op op, sj_ir_type type) {
  sj_ir_node *n = sj_ir_node_new(SJ_IR_INS);
  n->ins.op = op;
  n->ins.type = type;
  n->ins.guard = x->guard;
  sj_ir_block_push(&x->out, n);
  return &n->ins;
}

static val emit(mx *x, sj_ir_op op, sj_ir_type t, val a, val b, val c) {
  sj_ir_ins *ins = append(x, op, t);
  ins->dst = sj_ir_new_reg(x->f, op == SJ_IR_SETP ? SJ_IR_PRED : t, x->level);
  ins->a = a;
  ins->b = b;
  ins->c = c;
  return sj_ir_reg_val(x->f, ins->dst);
}

static val d(double v) {
  return sj_ir_float(SJ_IR_F64, v);
}

static val i64(long v) {
  return sj_ir_int(SJ_IR_S64, v);
}

#define OP2(name, op, t)                                                                           \
  static val name(mx *x, val a, val b) {                                                           \
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

static val fma3(mx *x, val a, val b, val c) {
  return emit(x, SJ_IR_FMA, SJ_IR_F64, a, b, c);
}

static val neg(mx *x, val a) {
  return emit(x, SJ_IR_NEG, SJ_IR_F64, a, none, none);
}

static val fabsd(mx *x, val a) {
  return emit(x, SJ_IR_ABS, SJ_IR_F64, a, none, none);
}

static val pnot(mx *x, val a) {
  return emit(x, SJ_IR_NOT, SJ_IR_PRED, a, none, none);
}

static val cmp(mx *x, sj_ir_cmp c, val a, val b) {
  sj_ir_ins *ins = append(x, SJ_IR_SETP, a.type);
  ins->dst = sj_ir_new_reg(x->f, SJ_IR_PRED, x->level);
  ins->a = a;
  ins->b = b;
  ins->cmp = c;
  return sj_ir_reg_val(x->f, ins->dst);
}

/* p ? a : b */
static val sel(mx *x, val p, val a, val b) {
  return emit(x, SJ_IR_SELP, a.type, a, b, p);
}

static val cvt(mx *x, sj_ir_type to, val a) {
  return emit(x, SJ_IR_CVT, to, a, none, none);
}

static val bits(mx *x, val a) {
  return emit(x, SJ_IR_BITCAST, SJ_IR_S64, a, none, none);
}

static val from_bits(mx *x, val a) {
  return emit(x, SJ_IR_BITCAST, SJ_IR_F64, a, none, none);
}

/* floor, ceil and trunc: single PTX instructions, left as MATH */
static val native_d(mx *x, sj_ir_math m, val a) {
  sj_ir_ins *ins = append(x, SJ_IR_MATH, SJ_IR_F64);
  ins->dst = sj_ir_new_reg(x->f, SJ_IR_F64, x->level);
  ins->a = a;
  ins->imm = m;
  return sj_ir_reg_val(x->f, ins->dst);
}

static val trunc_d(mx *x, val a) {
  return native_d(x, SJ_MATH_TRUNC, a);
}

static val floor_d(mx *x, val a) {
  return native_d(x, SJ_MATH_FLOOR, a);
}

/* A register assigned more than once (by assign). */
static int var(mx *x, sj_ir_type t) {
  int r = sj_ir_new_reg(x->f, t, x->level);
  x->f->regs[r].is_var = 1;
  return r;
}

static void assign(mx *x, int var, val v) {
  sj_ir_ins *ins = append(x, SJ_IR_MOV, x->f->regs[var].type);
  ins->dst = var;
  ins->a = v;
}

static val is_nan(mx *x, val a) {
  return cmp(x, SJ_CMP_NE, a, a); /* NE is unordered: true for NaN only */
}

/* Where f(a) = a: NaN, and zeros that keep their sign. */
static val nan_or_zero(mx *x, val a) {
  return por(x, is_nan(x, a), cmp(x, SJ_CMP_EQ, a, d(0.0)));
}

/* The magnitude of a with the sign of s. */
static val copysign_d(mx *x, val a, val s) {
  val sign = band(x, bits(x, s), shl(x, i64(1), i64(63)));
  return from_bits(x, bor(x, band(x, bits(x, a), i64(LONG_MAX)), sign));
}

/* c[0] + z (c[1] + z (c[2] + ...)) */
static val horner(mx *x, val z, const double *c, int n) {
  val p = d(c[n - 1]);
  for (int i = n - 2; i >= 0; i--) p = fma3(x, p, z, d(c[i]));
  return p;
}

/* h + l = a + b exactly. */
static void two_sum(mx *x, val a, val b, val *h, val *l) {
  *h = add(x, a, b);
  val bb = sub(x, *h, a);
  *l = add(x, sub(x, a, sub(x, *h, bb)), sub(x, b, bb));
}

/* h + l = a + b exactly, |a| >= |b|. */
static void fast_two_sum(mx *x, val a, val b, val *h, val *l) {
  *h = add(x, a, b);
  *l = sub(x, b, sub(x, *h, a));
}

/* --- constants (hex: exact doubles) --- */

static const double LN2_HI = 0x1.62e42fefa39efp-1, LN2_LO = 0x1.abc9e3b39803fp-56;
static const double LN2_32 = 0x1.62e42feep-1, LN2_32LO = 0x1.a39ef35793c76p-33; /* hi: 32 bits */
static const double INV_LN2 = 0x1.71547652b82fep+0, INV_LN2_LO = 0x1.777d0ffda0d24p-56;
static const double LOG10_2_32 = 0x1.34413508p-2, LOG10_2_32LO = 0x1.f79fef311f12bp-34;
static const double INV_LN10 = 0x1.bcb7b1526e50ep-2, INV_LN10_LO = 0x1.95355baaafad3p-57;
static const double PIO2[3] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54,
                               -0x1.f1976b7ed8fbcp-110};
static const double TWO_OVER_PI = 0x1.45f306dc9c883p-1;
static const double SQRT2 = 0x1.6a09e667f3bcdp+0;
static const double SHIFT = 0x1.8p52; /* adding it rounds to an integer, kept in the low bits */

/* 1/k! for k = 2 .. 13 */
static const double EXP_C[] = {0x1p-1,
                               0x1.5555555555555p-3,
                               0x1.5555555555555p-5,
                               0x1.1111111111111p-7,
                               0x1.6c16c16c16c17p-10,
                               0x1.a01a01a01a01ap-13,
                               0x1.a01a01a01a01ap-16,
                               0x1.71de3a556c734p-19,
                               0x1.27e4fb7789f5cp-22,
                               0x1.ae64567f544e4p-26,
                               0x1.1eed8eff8d898p-29,
                               0x1.6124613a86d09p-33};
/* 2 / (2k + 1) for k = 1 .. 11: 2 atanh(s) = 2s + s^3 (2/3 + 2 s^2/5 + ...) */
static const double LOG_C0_LO = 0x1.5555555555555p-55; /* 2/3 - LOG_C[0] */
static const double LOG_C[] = {0x1.5555555555555p-1, 0x1.999999999999ap-2, 0x1.2492492492492p-2,
                               0x1.c71c71c71c71cp-3, 0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3,
                               0x1.1111111111111p-3, 0x1.e1e1e1e1e1e1ep-4, 0x1.af286bca1af28p-4,
                               0x1.8618618618618p-4, 0x1.642c8590b2164p-4};
/* (-1)^k / (2k + 1)! for k = 1 .. 9 */
static const double SIN_C[] = {
    -0x1.5555555555555p-3,  0x1.1111111111111p-7,   -0x1.a01a01a01a01ap-13,
    0x1.71de3a556c734p-19,  -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
    -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49,  -0x1.2f49b46814157p-57};
/* (-1)^k / (2k)! for k = 2 .. 9 */
static const double COS_C[] = {
    0x1.5555555555555p-5,  -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22,
    0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53};

#define COUNT(a) (int)(sizeof a / sizeof *a)

/* --- exponentials --- */

/* v * 2^k for an integer k in [-1100, 1100]: two exact factors, one rounding. */
static val scale(mx *x, val v, val k) {
  val k1 = shr(x, k, i64(1));
  val k2 = isub(x, k, k1);
  val f1 = from_bits(x, shl(x, iadd(x, k1, i64(1023)), i64(52)));
  val f2 = from_bits(x, shl(x, iadd(x, k2, i64(1023)), i64(52)));
  return mul(x, mul(x, v, f1), f2);
}

/* The nearest integer to a * b (|a b| < 2^50), as a double and as an S64. */
static val round_product(mx *x, val a, val b, val *k) {
  val kd = sub(x, fma3(x, a, b, d(SHIFT)), d(SHIFT));
  *k = cvt(x, SJ_IR_S64, kd);
  return kd;
}

/* hi + lo = k ln2 + (s + c), s + c a double-double, |s| <= ln2/2 + tiny; kd = k as a double. */
static void reduce_ln2(mx *x, val hi, val lo, val *kd, val *k, val *s, val *c) {
  *kd = round_product(x, hi, d(INV_LN2), k);
  val r = fma3(x, neg(x, *kd), d(LN2_HI), hi); /* exact */
  val t = mul(x, neg(x, *kd), d(LN2_LO));
  if (lo.kind != SJ_V_NONE) /* at most an ulp of hi unless hi was clamped */
    t = add(x, t, mind(x, maxd(x, lo, d(-1.0)), d(1.0)));
  two_sum(x, r, t, s, c);
}

/* 2^k e^(s + c), |s| <= ln2/2 + tiny, c tiny beside s: 1 + s + s^2 P(s) + c, to well below
 * an ulp, with one rounding of note (1 + s split exactly), then one in the scaling. */
static val exp_reduced(mx *x, val s, val c, val k) {
  val one_s, e1;
  fast_two_sum(x, d(1.0), s, &one_s, &e1);
  val tail = add(x, e1, fma3(x, mul(x, s, s), horner(x, s, EXP_C, COUNT(EXP_C)), c));
  return scale(x, add(x, one_s, tail), k);
}

/* e^(hi + lo) * 2^adj, lo tiny beside hi; hi clamped first so k stays small (beyond the
 * clamps the result is 0 or infinity anyway). NaN not handled. */
static val exp_dd(mx *x, val hi, val lo, long adj) {
  hi = mind(x, maxd(x, hi, d(-760.0)), d(712.0)); /* e^(-760 + 1) is 0, e^(712 - 1) inf */
  val kd, k, s, c;
  reduce_ln2(x, hi, lo, &kd, &k, &s, &c);
  return exp_reduced(x, s, c, adj ? iadd(x, k, i64(adj)) : k);
}

static val exp_d(mx *x, val a) {
  return sel(x, is_nan(x, a), a, exp_dd(x, a, none, 0));
}

/* 2^a = 2^k e^(r ln2), r = a - k exact, r ln2 as a double-double */
static val exp2_d(mx *x, val a) {
  val c = mind(x, maxd(x, a, d(-1080.0)), d(1030.0));
  val k;
  val kd = round_product(x, c, d(1.0), &k);
  val r = sub(x, c, kd);
  val th = mul(x, r, d(LN2_HI));
  val tl = fma3(x, r, d(LN2_LO), fma3(x, r, d(LN2_HI), neg(x, th)));
  return sel(x, is_nan(x, a), a, exp_reduced(x, th, tl, k));
}

/* e^a - 1: 2^k (1 + q) - 1 = 2^k q + (2^k - 1), exact for k = 0. */
static val expm1_d(mx *x, val a) {
  val c = mind(x, maxd(x, a, d(-50.0)), d(710.0));
  val kd, k, rh, rl;
  reduce_ln2(x, c, none, &kd, &k, &rh, &rl);
  /* q = e^(rh + rl) - 1 = rh + rh^2 P(rh) + rl (1 + rh), as a double-double */
  val tail = fma3(x, mul(x, rh, rh), horner(x, rh, EXP_C, COUNT(EXP_C)), fma3(x, rl, rh, rl));
  val qh, ql;
  fast_two_sum(x, rh, tail, &qh, &ql);
  /* 2^k (1 + q) - 1 = (2^k - 1) + 2^k qh + 2^k ql, each exact where it matters, summed with
   * one rounding of note */
  val p = scale(x, d(1.0), k);
  val big = cmp(x, SJ_CMP_GT, kd, d(1000.0)); /* 2^k alone would overflow before q shrinks it */
  val nh, nl;
  two_sum(x, sub(x, p, d(1.0)), mul(x, p, qh), &nh, &nl);
  val near = add(x, nh, fma3(x, p, ql, nl));
  val v = sel(x, big, scale(x, add(x, add(x, d(1.0), qh), ql), k), near);
  return sel(x, nan_or_zero(x, a), a, v);
}

/* --- logarithms --- */

typedef struct log_parts {
  val e;       /* exponent, as a double */
  val f;       /* m - 1, m in [sqrt(1/2), sqrt(2)) */
  val special; /* predicate: a <= 0, infinite or NaN */
} log_parts;

/* a = 2^e (1 + f), subnormals normalized; a's sign, zero, infinity and NaN in special. */
static log_parts split(mx *x, val a) {
  log_parts p;
  val tiny = cmp(x, SJ_CMP_LT, a, d(0x1p-1022));
  val b = bits(x, sel(x, tiny, mul(x, a, d(0x1p54)), a));
  val e = isub(x, band(x, shr(x, b, i64(52)), i64(0x7ff)), i64(1023));
  e = sel(x, tiny, isub(x, e, i64(54)), e);
  val m = from_bits(x, bor(x, band(x, b, i64(0x000fffffffffffffL)), i64(0x3ff0000000000000L)));
  val big = cmp(x, SJ_CMP_GT, m, d(SQRT2));
  m = sel(x, big, mul(x, m, d(0.5)), m);
  e = sel(x, big, iadd(x, e, i64(1)), e);
  p.e = cvt(x, SJ_IR_F64, e);
  p.f = sub(x, m, d(1.0));
  val ok = pand(x, cmp(x, SJ_CMP_GT, a, d(0.0)), cmp(x, SJ_CMP_LT, a, d(__builtin_inf())));
  p.special = pnot(x, ok); /* NaN compares false */
  return p;
}

/* log_base(2^e (1 + f)): log(1 + f) = f - (f^2/2 - s (f^2/2 + R)), s = f / (2 + f),
 * R = s^2 (2/3 + 2 s^2/5 + ...); e log_base(2) with a 32-bit high part, exact times e. */
static val log_of(mx *x, const log_parts *p, int base) {
  val f = p->f;
  val s = divd(x, f, add(x, d(2.0), f));
  val z = mul(x, s, s);
  val r = mul(x, z, horner(x, z, LOG_C, COUNT(LOG_C)));
  val hfsq = mul(x, d(0.5), mul(x, f, f));
  val l1p = sub(x, f, sub(x, hfsq, mul(x, s, add(x, hfsq, r))));
  if (base == 2) return add(x, p->e, fma3(x, l1p, d(INV_LN2), mul(x, l1p, d(INV_LN2_LO))));
  if (base == 10) {
    val t = fma3(x, l1p, d(INV_LN10), mul(x, l1p, d(INV_LN10_LO)));
    return fma3(x, p->e, d(LOG10_2_32), fma3(x, p->e, d(LOG10_2_32LO), t));
  }
  return fma3(x, p->e, d(LN2_32), fma3(x, p->e, d(LN2_32LO), l1p));
}

/* The C99 values of log at zero, negative numbers, infinity and NaN. */
static val log_special(mx *x, val a, val v, val special) {
  val r = sel(x, cmp(x, SJ_CMP_EQ, a, d(0.0)), d(-__builtin_inf()), d(__builtin_nan("")));
  r = sel(x, cmp(x, SJ_CMP_EQ, a, d(__builtin_inf())), a, r);
  r = sel(x, is_nan(x, a), a, r);
  return sel(x, special, r, v);
}

/* log a in double-double from its parts (a > 0 finite; others give what they give). */
static void log_dd(mx *x, const log_parts *p, val *hi, val *lo) {
  val f = p->f;
  val th = add(x, d(2.0), f);
  val tl = sub(x, f, sub(x, th, d(2.0)));
  val sh = divd(x, f, th);
  val rem = fma3(x, neg(x, sh), th, f);
  rem = fma3(x, neg(x, sh), tl, rem);
  val sl = divd(x, rem, th);
  /* 2 atanh(sh + sl) = 2 sh + 2/3 sh^3 + sh^5 Q(z) + 2 sl (1 + z), z = sh^2: the cube in
   * double-double (it is up to 2^-8, its rounding would count), the rest in double */
  val z = mul(x, sh, sh);
  val zl = fma3(x, sh, sh, neg(x, z));
  val s3 = mul(x, sh, z);
  val s3l = fma3(x, sh, zl, fma3(x, sh, z, neg(x, s3)));
  val t3 = mul(x, d(LOG_C[0]), s3);
  val t3l = fma3(x, d(LOG_C[0]), s3, neg(x, t3));
  t3l = fma3(x, d(LOG_C[0]), s3l, fma3(x, d(LOG_C0_LO), s3, t3l));
  val rest = mul(x, mul(x, s3, z), horner(x, z, LOG_C + 1, COUNT(LOG_C) - 1));
  rest = fma3(x, mul(x, d(2.0), sl), add(x, d(1.0), z), rest);
  val lh, ll;
  fast_two_sum(x, mul(x, d(2.0), sh), t3, &lh, &ll);
  ll = add(x, ll, add(x, t3l, rest));
  /* + e ln2 */
  val eh = mul(x, p->e, d(LN2_HI));
  val el = fma3(x, p->e, d(LN2_HI), neg(x, eh));
  val sum, err;
  two_sum(x, eh, lh, &sum, &err);
  val l = add(x, add(x, err, el), fma3(x, p->e, d(LN2_LO), ll));
  fast_two_sum(x, sum, l, hi, lo);
}

/* log_base a: double (precise) from the double-double log times a double-double
 * 1/ln(base); float from the plain double evaluation, far below a float's rounding. */
static val log_d(mx *x, val a, int base, int precise) {
  log_parts p = split(x, a);
  val v;
  if (!precise) {
    v = log_of(x, &p, base);
  } else {
    val hi, lo;
    log_dd(x, &p, &hi, &lo);
    v = hi;
    if (base) {
      double c = base == 2 ? INV_LN2 : INV_LN10, cl = base == 2 ? INV_LN2_LO : INV_LN10_LO;
      val ph = mul(x, hi, d(c));
      val pl = fma3(x, hi, d(c), neg(x, ph));
      v = add(x, ph, fma3(x, hi, d(cl), fma3(x, lo, d(c), pl)));
    }
  }
  return log_special(x, a, v, p.special);
}

/* log(1 + a) = log(u + c) = log u + c / u, u + c = 1 + a exactly; log u in double-double. */
static val log1p_d(mx *x, val a) {
  val u, c, hi, lo;
  two_sum(x, d(1.0), a, &u, &c);
  log_parts p = split(x, u);
  log_dd(x, &p, &hi, &lo);
  val v = add(x, hi, add(x, lo, divd(x, c, u)));
  v = sel(x, cmp(x, SJ_CMP_EQ, u, d(1.0)), a, v); /* tiny a: log1p(a) = a, signed zeros kept */
  return log_special(x, u, v, p.special);
}

/* --- pow --- */

/* Whether a finite b is an integer, and an odd one. */
static void integer_kind(mx *x, val b, val *is_int, val *odd) {
  *is_int = cmp(x, SJ_CMP_EQ, trunc_d(x, b), b);
  val h = mul(x, b, d(0.5));
  *odd = pand(x, *is_int, cmp(x, SJ_CMP_NE, trunc_d(x, h), h));
}

/* a^b by C99 Annex F: precise (double): log and exp in double-double; else the plain double
 * evaluation, far below a float's rounding. */
static val pow_d(mx *x, val a, val b, int precise) {
  val aa = fabsd(x, a), hi, lo = none;
  if (precise) {
    log_parts p = split(x, aa);
    log_dd(x, &p, &hi, &lo);
  } else {
    hi = log_d(x, aa, 0, 0);
  }
  val ph = mul(x, b, hi), pl = none;
  if (precise) { /* the low part only where b log|a| is finite (inf - inf is NaN) */
    pl = fma3(x, b, lo, fma3(x, b, hi, neg(x, ph)));
    pl = sel(x, cmp(x, SJ_CMP_LT, fabsd(x, ph), d(__builtin_inf())), pl, d(0.0));
  }
  val v = exp_dd(x, ph, pl, 0);
  /* |a| zero or infinite: 0 or inf by the sign of b (the double-double log has no such
   * values); b = +-inf needs nothing: e^(+-inf) */
  val zero_or_inf =
      por(x, cmp(x, SJ_CMP_EQ, aa, d(0.0)), cmp(x, SJ_CMP_EQ, aa, d(__builtin_inf())));
  val blog =
      cmp(x, SJ_CMP_GT, mul(x, b, sel(x, cmp(x, SJ_CMP_EQ, aa, d(0.0)), d(-1.0), d(1.0))), d(0.0));
  v = sel(x, zero_or_inf, sel(x, blog, d(__builtin_inf()), d(0.0)), v);
  val is_int, odd;
  integer_kind(x, b, &is_int, &odd);
  val neg_a = cmp(x, SJ_CMP_LT, bits(x, a), i64(0)); /* the sign bit, -0 included */
  v = sel(x, pand(x, neg_a, odd), neg(x, v), v);
  val finite_b = cmp(x, SJ_CMP_LT, fabsd(x, b), d(__builtin_inf()));
  val finite_a = cmp(x, SJ_CMP_LT, aa, d(__builtin_inf()));
  val domain =
      pand(x, pand(x, cmp(x, SJ_CMP_LT, a, d(0.0)), finite_a), pand(x, finite_b, pnot(x, is_int)));
  v = sel(x, domain, d(__builtin_nan("")), v);
  v = sel(x, por(x, is_nan(x, a), is_nan(x, b)), add(x, a, b), v);
  val one = por(x, cmp(x, SJ_CMP_EQ, b, d(0.0)), cmp(x, SJ_CMP_EQ, a, d(1.0)));
  val inf_b = cmp(x, SJ_CMP_EQ, fabsd(x, b), d(__builtin_inf()));
  one = por(x, one, pand(x, cmp(x, SJ_CMP_EQ, a, d(-1.0)), inf_b));
  return sel(x, one, d(1.0), v);
}

/* --- trigonometric --- */

/* The reduced argument: a = q pi/2 + (h + l), |h + l| <= pi/4 (slightly more where q rounds),
 * h + l as a double-double; q modulo 4 is what counts. */
typedef struct reduced {
  val h, l, q;
} reduced;

/* |a| <= TRIG_LARGE: Cody-Waite with a 161-bit pi/2; a - q P0 is exact, the rest carried as
 * the low part. */
static reduced reduce_small(mx *x, val a) {
  reduced r;
  val t = fma3(x, a, d(TWO_OVER_PI), d(SHIFT));
  val kd = sub(x, t, d(SHIFT));
  r.q = band(x, bits(x, t), i64(3));
  val r1 = fma3(x, neg(x, kd), d(PIO2[0]), a);
  val p1 = mul(x, kd, d(PIO2[1]));
  val p1l = fma3(x, kd, d(PIO2[1]), neg(x, p1)); /* kd PIO2[1] = p1 + p1l */
  val h, l;
  two_sum(x, r1, neg(x, p1), &h, &l);
  l = sub(x, l, fma3(x, kd, d(PIO2[2]), p1l));
  fast_two_sum(x, h, l, &r.h, &r.l);
  return r;
}

/* 2/pi in base 2^24 from its integer part: digit j weighs 2^(-24 j). */
static const double TWO_OVER_PI_24[] = {
    0,        0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041,
    0xFE5163, 0xABDEBB, 0xC561B7, 0x246E3A, 0x424DD2, 0xE00649, 0x2EEA09, 0xD1921C, 0xFE1DEB,
    0x1CB129, 0xA73EE8, 0x8235F5, 0x2EBB44, 0x84E99C, 0x7026B4, 0x5F7E41, 0x3991D6, 0x398353,
    0x39F49C, 0x845F8B, 0xBDF928, 0x3B1FF8, 0x97FFDE, 0x05980F, 0xEF2F11, 0x8B5A0A, 0x6D1F6D,
    0x367ECF, 0x27CB09, 0xB74F46, 0x3F669E, 0x5FEA2D, 0x7527BA, 0xC7EBE5, 0xF17B3D, 0x0739F7,
    0x8A5292, 0xEA6BFB, 0x5FB11F, 0x8D5D08};
enum { PH_DIGITS = 8 }; /* 192 bits of 2/pi from where they start to count */

/* 2^e for an integer e in the normal range. */
static val pow2(mx *x, val e) {
  return from_bits(x, shl(x, iadd(x, e, i64(1023)), i64(52)));
}

/* |a| > TRIG_LARGE, finite: Payne-Hanek. |a| = M 2^E (M an integer of 53 bits), and
 * a 2/pi = sum over j of M D_j 2^(E - 24 j) (D_j the digits above). Digits with
 * E - 24 j >= 2 give multiples of 4 (nothing modulo 4), those beyond 8 more less than
 * 2^-130: so with j0 the first digit that counts and s = E - 24 j0 in [-22, 1], the digits
 * j0 .. j0 + 7 times the three 24-bit digits of M, summed by columns in exact doubles and
 * carried, give a 2/pi modulo 4 to 2^-130, enough for the nearest any double comes to a
 * multiple of pi/2 (about 2^-61). */
static reduced reduce_large(mx *x, val a) {
  val b = bits(x, fabsd(x, a));
  val e = isub(x, band(x, shr(x, b, i64(52)), i64(0x7ff)), i64(1075));
  val m = bor(x, band(x, b, i64(0x000fffffffffffffL)), i64(1L << 52));
  val md[3];
  for (int k = 0; k < 3; k++)
    md[k] = cvt(x, SJ_IR_F64, band(x, shr(x, m, i64(24 * k)), i64(0xffffff)));
  val j0 = isub(x, emit(x, SJ_IR_DIV, SJ_IR_S64, iadd(x, e, i64(46)), i64(24), none), i64(1));
  val s = isub(x, e, emit(x, SJ_IR_MUL, SJ_IR_S64, j0, i64(24), none));
  /* the digits j0 .. j0 + 7, selected from the table (j0 <= 41 for finite a) */
  enum { MAXJ0 = COUNT(TWO_OVER_PI_24) - PH_DIGITS };
  val dg[PH_DIGITS], is[MAXJ0];
  for (int j = 1; j <= MAXJ0; j++) is[j - 1] = cmp(x, SJ_CMP_EQ, j0, i64(j));
  for (int i = 0; i < PH_DIGITS; i++) {
    dg[i] = d(TWO_OVER_PI_24[i]);
    for (int j = 1; j <= MAXJ0; j++) dg[i] = sel(x, is[j - 1], d(TWO_OVER_PI_24[j + i]), dg[i]);
  }
  /* column c (weight 2^(s - 24 c)): sum of md[k] dg[c + k], below 2^50; then the carries */
  val col[PH_DIGITS];
  for (int c = 0; c < PH_DIGITS; c++) {
    col[c] = mul(x, md[0], dg[c]);
    for (int k = 1; k < 3 && c + k < PH_DIGITS; k++) col[c] = fma3(x, md[k], dg[c + k], col[c]);
  }
  for (int c = PH_DIGITS - 1; c >= 1; c--) {
    val carry = floor_d(x, mul(x, col[c], d(0x1p-24)));
    col[c] = fma3(x, carry, d(-0x1p24), col[c]);
    col[c - 1] = add(x, col[c - 1], carry);
  }
  /* column 0 modulo 4 plus column 1: exact (at most 48 bits); its nearest integer is q */
  val z0 = mul(x, col[0], pow2(x, s));
  z0 = fma3(x, floor_d(x, mul(x, z0, d(0.25))), d(-4.0), z0);
  val hi = fma3(x, col[1], pow2(x, isub(x, s, i64(24))), z0);
  val qd = floor_d(x, add(x, hi, d(0.5)));
  val f = sub(x, hi, qd);
  /* the other columns, two to a double, exactly; f + tail as a double-double */
  val tail[3];
  for (int k = 0; k < 3; k++) {
    int c = 2 + 2 * k;
    tail[k] = fma3(x, col[c], pow2(x, isub(x, s, i64(24 * c))),
                   mul(x, col[c + 1], pow2(x, isub(x, s, i64(24 * (c + 1))))));
  }
  val h, l, l2;
  two_sum(x, f, tail[0], &h, &l);
  two_sum(x, h, tail[1], &h, &l2);
  l = add(x, add(x, l, l2), tail[2]);
  fast_two_sum(x, h, l, &h, &l);
  /* times pi/2 */
  val ph = mul(x, h, d(PIO2[0]));
  val pl = fma3(x, h, d(PIO2[0]), neg(x, ph));
  pl = add(x, pl, fma3(x, h, d(PIO2[1]), mul(x, l, d(PIO2[0]))));
  reduced r;
  fast_two_sum(x, ph, pl, &r.h, &r.l);
  r.q = cvt(x, SJ_IR_S64, qd);
  val negative = cmp(x, SJ_CMP_LT, a, d(0.0));
  r.h = sel(x, negative, neg(x, r.h), r.h);
  r.l = sel(x, negative, neg(x, r.l), r.l);
  r.q = sel(x, negative, isub(x, i64(0), r.q), r.q);
  return r;
}

/* sin(h + l) = sin h + l cos h, for |h| <= pi/4 + tiny */
static val sin_poly(mx *x, const reduced *r) {
  val z = mul(x, r->h, r->h);
  val tail = fma3(x, mul(x, r->h, z), horner(x, z, SIN_C, COUNT(SIN_C)),
                  fma3(x, mul(x, r->l, z), d(-0.5), r->l));
  return add(x, r->h, tail);
}

/* cos(h + l) = cos h - l sin h */
static val cos_poly(mx *x, const reduced *r) {
  val z = mul(x, r->h, r->h);
  val hz = mul(x, d(0.5), z);
  val w = sub(x, d(1.0), hz);
  val c = fma3(x, mul(x, z, z), horner(x, z, COS_C, COUNT(COS_C)), neg(x, mul(x, r->h, r->l)));
  return add(x, w, add(x, sub(x, sub(x, d(1.0), w), hz), c));
}

static val bit_set(mx *x, val q, long bit) {
  return cmp(x, SJ_CMP_NE, band(x, q, i64(bit)), i64(0));
}

/* Above it the Cody-Waite reduction's q P0 would not be exact: Payne-Hanek, in a branch. */
static const double TRIG_LARGE = 0x1p30;

/* The reduction of a, the large one only where some argument needs it. */
static reduced reduce(mx *x, val a) {
  reduced small = reduce_small(x, a), r;
  int vars[3] = {var(x, SJ_IR_F64), var(x, SJ_IR_F64), var(x, SJ_IR_S64)};
  val *parts[3] = {&small.h, &small.l, &small.q};
  for (int k = 0; k < 3; k++) assign(x, vars[k], *parts[k]);
  val aa = fabsd(x, a);
  val big =
      pand(x, cmp(x, SJ_CMP_GT, aa, d(TRIG_LARGE)), cmp(x, SJ_CMP_LT, aa, d(__builtin_inf())));
  if (x->guard) big = pand(x, big, sj_ir_reg_val(x->f, x->guard));
  sj_ir_node *n = sj_ir_node_new(SJ_IR_IF);
  n->cond = big;
  sj_ir_block_push(&x->out, n);
  sj_ir_block outer = x->out;
  memset(&x->out, 0, sizeof x->out);
  reduced large = reduce_large(x, a);
  val *lparts[3] = {&large.h, &large.l, &large.q};
  for (int k = 0; k < 3; k++) assign(x, vars[k], *lparts[k]);
  n->then = x->out;
  x->out = outer;
  r.h = sj_ir_reg_val(x->f, vars[0]);
  r.l = sj_ir_reg_val(x->f, vars[1]);
  r.q = sj_ir_reg_val(x->f, vars[2]);
  return r;
}

static val trig_d(mx *x, val a, sj_ir_math m) {
  reduced r = reduce(x, a);
  val q = r.q, v;
  val s = sin_poly(x, &r), c = cos_poly(x, &r);
  if (m == SJ_MATH_TAN) {
    val odd = bit_set(x, q, 1);
    v = sel(x, odd, neg(x, divd(x, c, s)), divd(x, s, c));
  } else {
    if (m == SJ_MATH_COS) q = iadd(x, q, i64(1)); /* cos a = sin(a + pi/2) */
    v = sel(x, bit_set(x, q, 1), c, s);
    v = sel(x, bit_set(x, q, 2), neg(x, v), v);
  }
  /* infinities: NaN (the reduction gave garbage); NaN stays NaN */
  v = sel(x, cmp(x, SJ_CMP_EQ, fabsd(x, a), d(__builtin_inf())), d(__builtin_nan("")), v);
  return m == SJ_MATH_COS ? v : sel(x, cmp(x, SJ_CMP_EQ, a, d(0.0)), a, v);
}

/* --- hyperbolic --- */

static val hyper_d(mx *x, val a, sj_ir_math m) {
  val aa = fabsd(x, a);
  if (m == SJ_MATH_COSH) {
    val t = exp_dd(x, aa, none, -1); /* e^|a| / 2 */
    return sel(x, is_nan(x, a), a, add(x, t, divd(x, d(0.25), t)));
  }
  val small = cmp(x, SJ_CMP_LT, aa, d(22.0));
  if (m == SJ_MATH_SINH) {
    val e1 = expm1_d(x, mind(x, aa, d(22.0)));
    val near = mul(x, d(0.5), add(x, e1, divd(x, e1, add(x, e1, d(1.0)))));
    val v = sel(x, small, near, exp_dd(x, aa, none, -1));
    return sel(x, is_nan(x, a), a, copysign_d(x, v, a));
  }
  val e1 = expm1_d(x, mul(x, d(2.0), mind(x, aa, d(22.0)))); /* tanh */
  val v = sel(x, small, divd(x, e1, add(x, e1, d(2.0))), d(1.0));
  return sel(x, is_nan(x, a), a, copysign_d(x, v, a));
}

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
  case SJ_MATH_EXP:
    return exp_d(x, a);
  case SJ_MATH_EXP2:
    return exp2_d(x, a);
  case SJ_MATH_EXPM1:
    return expm1_d(x, a);
  case SJ_MATH_LOG:
    return log_d(x, a, 0, precise);
  case SJ_MATH_LOG2:
    return log_d(x, a, 2, precise);
  case SJ_MATH_LOG10:
    return log_d(x, a, 10, precise);
  case SJ_MATH_LOG1P:
    return log1p_d(x, a);
  case SJ_MATH_POW:
    return pow_d(x, a, b, precise);
  case SJ_MATH_SIN:
  case SJ_MATH_COS:
  case SJ_MATH_TAN:
    return trig_d(x, a, m);
  case SJ_MATH_SINH:
  case SJ_MATH_COSH:
  case SJ_MATH_TANH:
    return hyper_d(x, a, m);
  case SJ_MATH_ROUND:
    return round_d(x, a);
  default: /* SJ_MATH_FMOD */
    return fmod_d(x, a, b);
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
