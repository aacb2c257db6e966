/* sin, cos and tan as IR arithmetic (see astgen/mathexp.c): the argument reduced to
 * q pi/2 + r, r a double-double, by Cody-Waite up to 2^30 and by Payne-Hanek beyond (in a
 * branch), then Taylor polynomials of sin and cos of r. doc/math.md states the error bounds. */
#include "astgen/mathir.h"

static const double PIO2[3] = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54,
                               -0x1.f1976b7ed8fbcp-110};
static const double TWO_OVER_PI = 0x1.45f306dc9c883p-1;

/* (-1)^k / (2k + 1)! for k = 1 .. 9 */
static const double SIN_C[] = {
    -0x1.5555555555555p-3,  0x1.1111111111111p-7,   -0x1.a01a01a01a01ap-13,
    0x1.71de3a556c734p-19,  -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
    -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49,  -0x1.2f49b46814157p-57};
/* (-1)^k / (2k)! for k = 2 .. 9 */
static const double COS_C[] = {
    0x1.5555555555555p-5,  -0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22,
    0x1.1eed8eff8d898p-29, -0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53};

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

/* Bits 24 j + 64 w .. 24 j + 64 w + 63 of the digits above (the first bit the highest of
 * digit 0), as a 64-bit word. */
static long window(int j, int w) {
  unsigned long v = 0;
  for (int k = 0; k < 64; k++) {
    int bit = 24 * j + 64 * w + k;
    unsigned long digit = (unsigned long)TWO_OVER_PI_24[bit / 24];
    v = v << 1 | (digit >> (23 - bit % 24) & 1);
  }
  return (long)v;
}

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
  /* the digits j0 .. j0 + 7 (j0 <= 41 for finite a): three 64-bit words, each selected from
   * the windows of the table (three chains of selections rather than eight), then split */
  enum { MAXJ0 = COUNT(TWO_OVER_PI_24) - PH_DIGITS };
  val wd[3], dg[PH_DIGITS], is[MAXJ0];
  for (int j = 1; j <= MAXJ0; j++) is[j - 1] = cmp(x, SJ_CMP_EQ, j0, i64(j));
  for (int w = 0; w < 3; w++) {
    wd[w] = i64(window(0, w));
    for (int j = 1; j <= MAXJ0; j++) wd[w] = sel(x, is[j - 1], i64(window(j, w)), wd[w]);
  }
  for (int i = 0; i < PH_DIGITS; i++) {
    int at = 24 * i % 64, word = 24 * i / 64, spill = at + 24 - 64; /* bits in the next word */
    val v = shr(x, wd[word], i64(spill > 0 ? 0 : -spill));
    if (spill > 0) /* the arithmetic shift's sign bits masked off */
      v = bor(x, shl(x, v, i64(spill)),
              band(x, shr(x, wd[word + 1], i64(64 - spill)), i64((1L << spill) - 1)));
    dg[i] = cvt(x, SJ_IR_F64, band(x, v, i64(0xffffff)));
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

/* sin(h + l) = sin h + l cos h, for |h| <= pi/4 + tiny, as a double-double */
static void sin_dd(mx *x, const reduced *r, val *h, val *l) {
  val z = mul(x, r->h, r->h);
  val tail = fma3(x, mul(x, r->h, z), horner(x, z, SIN_C, COUNT(SIN_C)),
                  fma3(x, mul(x, r->l, z), d(-0.5), r->l));
  fast_two_sum(x, r->h, tail, h, l);
}

/* cos(h + l) = cos h - l sin h, as a double-double */
static void cos_dd(mx *x, const reduced *r, val *h, val *l) {
  val z = mul(x, r->h, r->h);
  val hz = mul(x, d(0.5), z);
  val w = sub(x, d(1.0), hz);
  val c = fma3(x, mul(x, z, z), horner(x, z, COS_C, COUNT(COS_C)), neg(x, mul(x, r->h, r->l)));
  fast_two_sum(x, w, add(x, sub(x, sub(x, d(1.0), w), hz), c), h, l);
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
  val q = r.q, v, sh, sl, ch, cl;
  sin_dd(x, &r, &sh, &sl);
  cos_dd(x, &r, &ch, &cl);
  if (m == SJ_MATH_TAN) { /* s / c, or -c / s for odd q: the quotient corrected by its rest */
    val odd = bit_set(x, q, 1);
    val nh = sel(x, odd, neg(x, ch), sh), nl = sel(x, odd, neg(x, cl), sl);
    val dh = sel(x, odd, sh, ch), dl = sel(x, odd, sl, cl);
    val t = divd(x, nh, dh);
    val rest = sub(x, add(x, fma3(x, neg(x, t), dh, nh), nl), mul(x, t, dl));
    v = add(x, t, divd(x, rest, dh));
  } else {
    val s = add(x, sh, sl), c = add(x, ch, cl);
    if (m == SJ_MATH_COS) q = iadd(x, q, i64(1)); /* cos a = sin(a + pi/2) */
    v = sel(x, bit_set(x, q, 1), c, s);
    v = sel(x, bit_set(x, q, 2), neg(x, v), v);
  }
  /* infinities: NaN (the reduction gave garbage); NaN stays NaN */
  v = sel(x, cmp(x, SJ_CMP_EQ, fabsd(x, a), d(__builtin_inf())), d(__builtin_nan("")), v);
  return m == SJ_MATH_COS ? v : sel(x, cmp(x, SJ_CMP_EQ, a, d(0.0)), a, v);
}

sj_ir_val sj_mx_trig(sj_mx *x, sj_ir_math m, sj_ir_val a) {
  return trig_d(x, a, m);
}
