/* exp, exp2, expm1, log, log2, log10, log1p, pow, sinh, cosh and tanh as IR arithmetic (see
 * astgen/mathexp.c): arguments reduced exactly (k ln2 + s with s and the logarithm carried
 * as double-doubles), Taylor polynomials whose truncation stays below 2^-60 relative, and
 * one rounding of note at the end (exp: 1 + s split exactly, then the tail; log:
 * 2 atanh(f / (2 + f)) with its cube in double-double; pow: exp of y log x in double-double).
 * doc/math.md states the error bounds. */
#include "astgen/mathir.h"

/* --- constants (hex: exact doubles) --- */

static const double LN2_HI = 0x1.62e42fefa39efp-1, LN2_LO = 0x1.abc9e3b39803fp-56;
static const double LN2_32 = 0x1.62e42feep-1, LN2_32LO = 0x1.a39ef35793c76p-33; /* hi: 32 bits */
static const double INV_LN2 = 0x1.71547652b82fep+0, INV_LN2_LO = 0x1.777d0ffda0d24p-56;
static const double LOG10_2_32 = 0x1.34413508p-2, LOG10_2_32LO = 0x1.f79fef311f12bp-34;
static const double INV_LN10 = 0x1.bcb7b1526e50ep-2, INV_LN10_LO = 0x1.95355baaafad3p-57;
static const double SQRT2 = 0x1.6a09e667f3bcdp+0;

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

/* --- exponentials --- */

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
/* e^c - 1, c in [-50, 710]: 2^k (1 + q) - 1 with q = e^r - 1, and h + l the same as a
 * double-double where 2^k stays finite (k <= 1000). */
typedef struct expm1_parts {
  val kd, k, qh, ql, h, l;
} expm1_parts;

static expm1_parts expm1_dd(mx *x, val c) {
  expm1_parts e;
  val rh, rl;
  reduce_ln2(x, c, none, &e.kd, &e.k, &rh, &rl);
  /* q = e^(rh + rl) - 1 = rh + rh^2 P(rh) + rl (1 + rh), as a double-double */
  val tail = fma3(x, mul(x, rh, rh), horner(x, rh, EXP_C, COUNT(EXP_C)), fma3(x, rl, rh, rl));
  fast_two_sum(x, rh, tail, &e.qh, &e.ql);
  /* (2^k - 1) + 2^k qh + 2^k ql, each exact where it matters, summed with one rounding of
   * note */
  val p = scale(x, d(1.0), e.k);
  val nh, nl;
  two_sum(x, sub(x, p, d(1.0)), mul(x, p, e.qh), &nh, &nl);
  fast_two_sum(x, nh, fma3(x, p, e.ql, nl), &e.h, &e.l);
  return e;
}

static val expm1_d(mx *x, val a) {
  expm1_parts e = expm1_dd(x, mind(x, maxd(x, a, d(-50.0)), d(710.0)));
  val big = cmp(x, SJ_CMP_GT, e.kd, d(1000.0)); /* 2^k alone would overflow before q shrinks it */
  val v = sel(x, big, scale(x, add(x, add(x, d(1.0), e.qh), e.ql), e.k), e.h);
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

/* --- hyperbolic --- */

/* (h + l) / (h + l + c) for a double-double h + l, c = 1 or 2, as a double-double: the
 * quotient corrected by its remainder. */
static void ratio(mx *x, const expm1_parts *e, double c, val *qh, val *ql) {
  val th, tl;
  two_sum(x, e->h, d(c), &th, &tl);
  tl = add(x, tl, e->l);
  *qh = divd(x, e->h, th);
  val r = sub(x, add(x, fma3(x, neg(x, *qh), th, e->h), e->l), mul(x, *qh, tl));
  *ql = divd(x, r, th);
}

/* Below 22 in magnitude from e^|a| - 1 as a double-double (sinh = (e1 + e1 / (e1 + 1)) / 2,
 * tanh = e1' / (e1' + 2) with e1' = e^2|a| - 1), above it from e^|a| / 2 (sinh) or 1. */
static val hyper_d(mx *x, val a, sj_ir_math m) {
  val aa = fabsd(x, a);
  if (m == SJ_MATH_COSH) {
    val t = exp_dd(x, aa, none, -1); /* e^|a| / 2 */
    return sel(x, is_nan(x, a), a, add(x, t, divd(x, d(0.25), t)));
  }
  val small = cmp(x, SJ_CMP_LT, aa, d(22.0)), qh, ql, v;
  if (m == SJ_MATH_SINH) {
    expm1_parts e = expm1_dd(x, mind(x, aa, d(22.0)));
    ratio(x, &e, 1.0, &qh, &ql);
    val sh, sl;
    two_sum(x, e.h, qh, &sh, &sl);
    val near = mul(x, d(0.5), add(x, sh, add(x, sl, add(x, e.l, ql))));
    v = sel(x, small, near, exp_dd(x, aa, none, -1));
  } else {
    expm1_parts e = expm1_dd(x, mul(x, d(2.0), mind(x, aa, d(22.0))));
    ratio(x, &e, 2.0, &qh, &ql);
    v = sel(x, small, add(x, qh, ql), d(1.0));
  }
  return sel(x, is_nan(x, a), a, copysign_d(x, v, a));
}

sj_ir_val sj_mx_explog(sj_mx *x, sj_ir_math m, sj_ir_val a, sj_ir_val b, int precise) {
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
  default: /* sinh, cosh, tanh */
    return hyper_d(x, a, m);
  }
}
