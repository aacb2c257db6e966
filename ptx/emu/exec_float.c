/* Float arithmetic in its general form and conversions. Results are C float and double
 * arithmetic in the rounding mode the instruction asks for (fesetround); .approx forms are
 * computed exactly (correctly rounded), which is within their specified error. The general
 * path is one function per float type, instantiated from the operation table (ops.h) with
 * <tgmath.h>, so that sqrt(a) is sqrtf for f32 and sqrt for f64. */
#include <fenv.h>
#include <tgmath.h>
#include "exec.h"

static int rnd_mode(int r) {
  switch (r) {
  case EMU_RND_RZ:
    return FE_TOWARDZERO;
  case EMU_RND_RM:
    return FE_DOWNWARD;
  case EMU_RND_RP:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}

/* PTX min/max: a NaN operand loses, -0 is below +0, two NaNs give the canonical NaN. */
#define FMINMAX(a, b, max, canonical)                                                              \
  if (isnan(a) && isnan(b)) return canonical;                                                      \
  if (isnan(a)) return b;                                                                          \
  if (isnan(b)) return a;                                                                          \
  if (a == 0 && b == 0) return (signbit(a) != 0) == !max ? a : b;                                  \
  return max ? (a > b ? a : b) : (a < b ? a : b)
float emu_fminmaxf(float a, float b, int max) {
  FMINMAX(a, b, max, emu_f32(0x7fffffffu));
}
double emu_fminmaxd(double a, double b, int max) {
  FMINMAX(a, b, max, emu_f64(0x7fffffffffffffffull));
}

/* .ftz: a subnormal becomes a zero of its sign (f32, and f64 for rcp/rsqrt.approx.ftz). */
#define FLUSH(x) (fpclassify(x) == FP_SUBNORMAL ? copysign(0, x) : (x))
#define SAT01(x) (isnan(x) ? 0 : (x) < 0 ? 0 : (x) > 1 ? 1 : (x))

/* One switch case per operation of the table that exists for the type. */
#define GEN_CASE(ID, expr)                                                                         \
  case EMU_OP_##ID:                                                                                \
    r = expr;                                                                                      \
    break;
#define GEN_F32_FLT_FAST GEN_CASE
#define GEN_F32_FLT GEN_CASE
#define GEN_F32_F32 GEN_CASE
#define GEN_F32_NONE(ID, expr)
#define GEN_F64_FLT_FAST GEN_CASE
#define GEN_F64_FLT GEN_CASE
#define GEN_F64_F32(ID, expr)
#define GEN_F64_NONE(ID, expr)
#define GEN_F32(ID, name, alias, family, class, it, ie, ft, fe) GEN_F32_##ft(ID, fe)
#define GEN_F64(ID, name, alias, family, class, it, ie, ft, fe) GEN_F64_##ft(ID, fe)

#define FLOAT_OP(TK, T_, FROM, TO)                                                                 \
  void emu_float_##TK(const emu_insn *in, uint32_t gm, uint64_t *D, const uint64_t *A,             \
                      const uint64_t *B, const uint64_t *C) {                                      \
    typedef T_ T;                                                                                  \
    int ftz = in->flags & EMU_F_FTZ, sat = in->flags & EMU_F_SAT;                                  \
    int mode = rnd_mode(in->rnd), old = fegetround();                                              \
    if (mode != FE_TONEAREST) fesetround(mode);                                                    \
    LANES({                                                                                        \
      T a = FROM(A[l]), b = FROM(B[l]), c = FROM(C[l]), r;                                         \
      if (ftz) a = FLUSH(a), b = FLUSH(b), c = FLUSH(c);                                           \
      switch (in->op) {                                                                            \
        EMU_OPS(GEN_##TK)                                                                          \
      default:                                                                                     \
        r = 0;                                                                                     \
        break;                                                                                     \
      }                                                                                            \
      if (sat) r = SAT01(r);                                                                       \
      if (ftz) r = FLUSH(r);                                                                       \
      D[l] = TO(r);                                                                                \
    });                                                                                            \
    if (mode != FE_TONEAREST) fesetround(old);                                                     \
  }
FLOAT_OP(F32, float, emu_f32, emu_bits32)
FLOAT_OP(F64, double, emu_f64, emu_bits64)

/* ---------- cvt ---------- */

/* integer -> floating point with an explicit rounding mode; mant = 24 or 53 */
static double int_to_fp(uint64_t mag, int neg, int mant, int rnd) {
  if (mag == 0) return 0.0;
  int msb = 63 - __builtin_clzll(mag);
  double r;
  if (msb < mant)
    r = (double)mag;
  else {
    int sh = msb + 1 - mant;
    uint64_t q = mag >> sh, rem = mag & ((1ull << sh) - 1), half = 1ull << (sh - 1);
    int up;
    switch (rnd) {
    case EMU_RND_RZ:
      up = 0;
      break;
    case EMU_RND_RM:
      up = neg && rem;
      break;
    case EMU_RND_RP:
      up = !neg && rem;
      break;
    default:
      up = rem > half || (rem == half && (q & 1));
      break;
    }
    r = ldexp((double)(q + (uint64_t)up), sh);
  }
  return neg ? -r : r;
}

/* v rounded to an integral value by .rni (ties to even), .rzi, .rmi or .rpi; other modes
 * leave it. Exact for float values too: their integral neighbours are floats. */
static double integral(double v, int rnd) {
  switch (rnd) {
  case EMU_RND_RNI:
    return nearbyint(v);
  case EMU_RND_RZI:
    return trunc(v);
  case EMU_RND_RMI:
    return floor(v);
  case EMU_RND_RPI:
    return ceil(v);
  default:
    return v;
  }
}

static uint64_t fp_to_int(double v, int rnd, int dt) {
  int sz = emu_type_size(dt), sg = emu_type_kind(dt) == EMU_K_S;
  if (isnan(v)) return 0;
  v = rnd == EMU_RND_RZI || rnd == EMU_RND_RMI || rnd == EMU_RND_RPI ? integral(v, rnd)
                                                                     : nearbyint(v);
  if (sg) {
    double lo = -ldexp(1.0, 8 * sz - 1), hi = ldexp(1.0, 8 * sz - 1);
    int64_t r;
    if (v < lo)
      r = sz == 8 ? INT64_MIN : (int64_t)lo;
    else if (v >= hi)
      r = sz == 8 ? INT64_MAX : (int64_t)hi - 1;
    else
      r = (int64_t)v;
    return (uint64_t)r;
  }
  double hi = ldexp(1.0, 8 * sz);
  if (v <= 0) return 0;
  if (v >= hi) return sz == 8 ? UINT64_MAX : (uint64_t)hi - 1;
  return (uint64_t)v;
}

/* integer -> integer; .sat clamps the source value into the destination's range */
static uint64_t int_to_int(const emu_insn *in, uint64_t a) {
  int dt = in->type, at = in->type2;
  int dsz = emu_type_size(dt), asz = emu_type_size(at);
  int dk = emu_type_kind(dt), ak = emu_type_kind(at);
  if (!(in->flags & EMU_F_SAT)) return emu_cvt_int(a, at, dt);
  if (ak == EMU_K_S) {
    int64_t v = emu_sext(a, asz);
    int64_t lo = dk == EMU_K_S ? (dsz == 8 ? INT64_MIN : -(1ll << (8 * dsz - 1))) : 0;
    int64_t hi = dk == EMU_K_S ? (dsz == 8 ? INT64_MAX : (1ll << (8 * dsz - 1)) - 1)
                               : (dsz == 8 ? INT64_MAX : (int64_t)((1ull << (8 * dsz)) - 1));
    a = (uint64_t)(v < lo ? lo : v > hi ? hi : v);
  } else {
    uint64_t v = emu_zext(a, asz);
    uint64_t hi = dk == EMU_K_S ? (dsz == 8 ? (uint64_t)INT64_MAX : (1ull << (8 * dsz - 1)) - 1)
                                : (dsz == 8 ? UINT64_MAX : (1ull << (8 * dsz)) - 1);
    a = v > hi ? hi : v;
  }
  /* truncate, then extend by the destination's signedness */
  return dk == EMU_K_S ? (uint64_t)emu_sext(a, dsz) : emu_zext(a, dsz);
}

/* float -> float */
static uint64_t fp_to_fp(const emu_insn *in, double v) {
  int sat = in->flags & EMU_F_SAT, ftz = in->flags & EMU_F_FTZ;
  if (in->type == EMU_T_F64) {
    v = integral(v, in->rnd);
    return emu_bits64(sat ? SAT01(v) : v);
  }
  float f;
  if (in->type2 == EMU_T_F64) {
    int old = fegetround(), mode = rnd_mode(in->rnd);
    if (mode != FE_TONEAREST) fesetround(mode);
    volatile double vv = v;
    f = (float)vv;
    if (mode != FE_TONEAREST) fesetround(old);
  } else
    f = (float)integral(v, in->rnd);
  if (sat) f = SAT01(f);
  return emu_bits32(ftz ? emu_ftz32(f) : f);
}

uint64_t emu_cvt(const emu_insn *in, uint64_t a) {
  int dt = in->type, at = in->type2;
  int dk = emu_type_kind(dt), ak = emu_type_kind(at);
  if (dk != EMU_K_F && ak != EMU_K_F) return int_to_int(in, a);
  if (ak != EMU_K_F) {
    int asz = emu_type_size(at), neg = 0;
    uint64_t mag = emu_zext(a, asz);
    if (ak == EMU_K_S) {
      int64_t v = emu_sext(a, asz);
      neg = v < 0;
      mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    }
    double d = int_to_fp(mag, neg, dt == EMU_T_F32 ? 24 : 53, in->rnd);
    if (in->flags & EMU_F_SAT) d = SAT01(d);
    /* (float)d is exact: d already has at most 24 significant bits */
    return dt == EMU_T_F32 ? emu_bits32((float)d) : emu_bits64(d);
  }
  double v = at == EMU_T_F32
                 ? (double)((in->flags & EMU_F_FTZ) ? emu_ftz32(emu_f32(a)) : emu_f32(a))
                 : emu_f64(a);
  return dk == EMU_K_F ? fp_to_fp(in, v) : fp_to_int(v, in->rnd, dt);
}
