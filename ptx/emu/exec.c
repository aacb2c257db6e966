/* The interpreter: runs the blocks of a launch one after another; inside a block, warps of
 * 32 threads execute in lockstep over pre-decoded instructions.
 *
 * Registers: one 64-bit slot per register and lane (R[slot * 32 + lane]); a 32-bit mask per
 * register tells which lanes have written it (reads of unwritten registers are errors).
 * Divergence: every lane has its own pc; the warp runs the group of ready lanes with the
 * smallest pc (lanes at the same pc reconverge). Lanes wait at bar.sync until every thread
 * of the block arrives; warp-synchronous instructions (shfl.sync, vote.sync) wait until all
 * lanes of their member mask arrive. Floating-point results are computed with C float and
 * double arithmetic in the rounding mode the instruction asks for (fesetround); .approx
 * forms are computed exactly (correctly rounded), which is within their specified error. */
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define ALL 0xffffffffu

typedef struct warp {
  uint32_t pc, mask, live, waiting, parked, wait_min;
  int forced;
  uint32_t lpc[32], barpc[32];
  uint64_t *R;
  uint32_t *W;
  uint32_t tid0; /* linear thread index of lane 0 */
} warp;

typedef struct ctx {
  emu_launch *L;
  const emu_func *f;
  const emu_insn *code;
  emu_stats *st;
  uint8_t *shared;
  uint32_t shared_size;
  uint8_t *local;
  uint32_t local_size;
  uint32_t nthreads, nwarps;
  uint32_t ctaid[3];
  warp *warps;
  emu_race race;
  int racecheck;
  const uint8_t *params;
  uint32_t param_size;
} ctx;

/* ---------- helpers ---------- */

static inline float F32(uint64_t v) {
  union {
    uint32_t u;
    float f;
  } x = {(uint32_t)v};
  return x.f;
}
static inline uint64_t BF32(float f) {
  union {
    float f;
    uint32_t u;
  } x = {f};
  return x.u;
}
static inline double F64(uint64_t v) {
  union {
    uint64_t u;
    double f;
  } x = {v};
  return x.f;
}
static inline uint64_t BF64(double f) {
  union {
    double f;
    uint64_t u;
  } x = {f};
  return x.u;
}
static inline float ftz32(float f) {
  uint32_t u = (uint32_t)BF32(f);
  if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
  return F32(u);
}
static inline int64_t sext(uint64_t v, int bytes) {
  switch (bytes) {
  case 1:
    return (int8_t)v;
  case 2:
    return (int16_t)v;
  case 4:
    return (int32_t)v;
  default:
    return (int64_t)v;
  }
}
static inline uint64_t zext(uint64_t v, int bytes) {
  return bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
}

static void thread_coords(const ctx *c, uint32_t t, unsigned v[3]) {
  const unsigned *b = c->L->block;
  v[0] = t % b[0];
  v[1] = (t / b[0]) % b[1];
  v[2] = t / (b[0] * b[1]);
}

static CUresult fail(ctx *c, const warp *w, int lane, const emu_insn *in, CUresult rc,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static CUresult fail(ctx *c, const warp *w, int lane, const emu_insn *in, CUresult rc,
                     const char *fmt, ...) {
  unsigned t[3] = {0, 0, 0};
  if (w) thread_coords(c, w->tid0 + (uint32_t)lane, t);
  int k =
      snprintf(c->L->msg, sizeof c->L->msg,
               "kernel '%s', PTX line %d, block (%u,%u,%u), thread (%u,%u,%u): ", c->f->name,
               in ? in->line : c->f->line, c->ctaid[0], c->ctaid[1], c->ctaid[2], t[0], t[1], t[2]);
  if (k < 0 || (size_t)k >= sizeof c->L->msg) return rc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->L->msg + k, sizeof c->L->msg - (size_t)k, fmt, ap);
  va_end(ap);
  return rc;
}

static const char *space_name(int sp) {
  static const char *const n[] = {"generic", "global", "shared", "local", "param", "const"};
  return n[sp];
}

/* ---------- scheduling inside a warp ---------- */

static void resched(warp *w) {
  uint32_t ready = w->live & ~w->waiting & ~w->parked;
  w->forced = 0;
  if (!ready && w->parked) {
    ready = w->parked;
    w->forced = 1;
  }
  if (!ready) {
    w->mask = 0;
    w->wait_min = UINT32_MAX;
    return;
  }
  uint32_t minpc = UINT32_MAX;
  for (uint32_t mm = ready; mm; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    if (w->lpc[l] < minpc) minpc = w->lpc[l];
  }
  uint32_t mask = 0, wmin = UINT32_MAX;
  for (uint32_t mm = ready; mm; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    if (w->lpc[l] == minpc)
      mask |= 1u << l;
    else if (w->lpc[l] < wmin)
      wmin = w->lpc[l];
  }
  if (w->forced) w->parked &= ~mask;
  w->pc = minpc;
  w->mask = mask;
  w->wait_min = w->forced ? UINT32_MAX : wmin;
}

static void set_lpc(warp *w, uint32_t m, uint32_t pc) {
  for (uint32_t mm = m; mm; mm &= mm - 1) w->lpc[__builtin_ctz(mm)] = pc;
}

/* ---------- lane loops ---------- */

#define LANES(...)                                                                                 \
  do {                                                                                             \
    if (gm == ALL) {                                                                               \
      for (int l = 0; l < 32; l++) {                                                               \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    } else {                                                                                       \
      for (uint32_t mm_ = gm; mm_; mm_ &= mm_ - 1) {                                               \
        int l = __builtin_ctz(mm_);                                                                \
        __VA_ARGS__;                                                                               \
      }                                                                                            \
    }                                                                                              \
  } while (0)

#define C(op, tk) ((op)*EMU_TK_N + (tk))
#define CI(op)                                                                                     \
  case C(op, EMU_TK_U16):                                                                          \
  case C(op, EMU_TK_S16):                                                                          \
  case C(op, EMU_TK_U32):                                                                          \
  case C(op, EMU_TK_S32):                                                                          \
  case C(op, EMU_TK_U64):                                                                          \
  case C(op, EMU_TK_S64)

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

static float fmin32(float a, float b, int max) {
  if (isnan(a) && isnan(b)) return F32(0x7fffffffu);
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == 0 && b == 0) return (signbit(a) != 0) == !max ? a : b;
  return max ? (a > b ? a : b) : (a < b ? a : b);
}
static double fmin64(double a, double b, int max) {
  if (isnan(a) && isnan(b)) return F64(0x7fffffffffffffffull);
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == 0 && b == 0) return (signbit(a) != 0) == !max ? a : b;
  return max ? (a > b ? a : b) : (a < b ? a : b);
}

/* All f32 arithmetic in its general form: rounding mode, .ftz and .sat. */
static void f32_op(const emu_insn *in, uint32_t gm, uint64_t *D, const uint64_t *A,
                   const uint64_t *B, const uint64_t *Cc) {
  int ftz = in->flags & EMU_F_FTZ, sat = in->flags & EMU_F_SAT;
  int mode = rnd_mode(in->rnd), old = fegetround();
  if (mode != FE_TONEAREST) fesetround(mode);
  LANES({
    float a = F32(A[l]), b = B ? F32(B[l]) : 0, cc = Cc ? F32(Cc[l]) : 0, r;
    if (ftz) a = ftz32(a), b = ftz32(b), cc = ftz32(cc);
    switch (in->op) {
    case EMU_OP_ADD:
      r = a + b;
      break;
    case EMU_OP_SUB:
      r = a - b;
      break;
    case EMU_OP_MUL:
      r = a * b;
      break;
    case EMU_OP_DIV:
      r = a / b;
      break;
    case EMU_OP_FMA:
      r = fmaf(a, b, cc);
      break;
    case EMU_OP_MIN:
      r = fmin32(a, b, 0);
      break;
    case EMU_OP_MAX:
      r = fmin32(a, b, 1);
      break;
    case EMU_OP_ABS:
      r = fabsf(a);
      break;
    case EMU_OP_NEG:
      r = -a;
      break;
    case EMU_OP_SQRT:
      r = sqrtf(a);
      break;
    case EMU_OP_RCP:
      r = 1.0f / a;
      break;
    case EMU_OP_RSQRT:
      r = (float)(1.0 / sqrt((double)a));
      break;
    case EMU_OP_SIN:
      r = sinf(a);
      break;
    case EMU_OP_COS:
      r = cosf(a);
      break;
    case EMU_OP_LG2:
      r = log2f(a);
      break;
    case EMU_OP_EX2:
      r = exp2f(a);
      break;
    case EMU_OP_COPYSIGN:
      r = copysignf(b, a);
      break;
    default:
      r = 0;
      break;
    }
    if (sat) r = isnan(r) ? 0.0f : r < 0 ? 0.0f : r > 1 ? 1.0f : r;
    if (ftz) r = ftz32(r);
    if (in->op == EMU_OP_ABS || in->op == EMU_OP_NEG)
      D[l] = (uint32_t)BF32(ftz ? ftz32(a) : a) ^ (in->op == EMU_OP_NEG ? 0x80000000u : 0),
      D[l] = in->op == EMU_OP_ABS ? D[l] & 0x7fffffffu : D[l];
    else
      D[l] = BF32(r);
  });
  if (mode != FE_TONEAREST) fesetround(old);
}

static void f64_op(const emu_insn *in, uint32_t gm, uint64_t *D, const uint64_t *A,
                   const uint64_t *B, const uint64_t *Cc) {
  int mode = rnd_mode(in->rnd), old = fegetround();
  int ftz = in->flags & EMU_F_FTZ; /* only rcp/rsqrt.approx.ftz.f64 */
  if (mode != FE_TONEAREST) fesetround(mode);
  LANES({
    double a = F64(A[l]), b = B ? F64(B[l]) : 0, cc = Cc ? F64(Cc[l]) : 0, r;
    if (ftz && fpclassify(a) == FP_SUBNORMAL) a = copysign(0.0, a);
    switch (in->op) {
    case EMU_OP_ADD:
      r = a + b;
      break;
    case EMU_OP_SUB:
      r = a - b;
      break;
    case EMU_OP_MUL:
      r = a * b;
      break;
    case EMU_OP_DIV:
      r = a / b;
      break;
    case EMU_OP_FMA:
      r = fma(a, b, cc);
      break;
    case EMU_OP_MIN:
      r = fmin64(a, b, 0);
      break;
    case EMU_OP_MAX:
      r = fmin64(a, b, 1);
      break;
    case EMU_OP_SQRT:
      r = sqrt(a);
      break;
    case EMU_OP_RCP:
      r = 1.0 / a;
      break;
    case EMU_OP_RSQRT:
      r = 1.0 / sqrt(a);
      break;
    case EMU_OP_COPYSIGN:
      r = copysign(b, a);
      break;
    default:
      r = 0;
      break;
    }
    if (ftz && fpclassify(r) == FP_SUBNORMAL) r = copysign(0.0, r);
    if (in->op == EMU_OP_ABS)
      D[l] = A[l] & 0x7fffffffffffffffull;
    else if (in->op == EMU_OP_NEG)
      D[l] = A[l] ^ 0x8000000000000000ull;
    else
      D[l] = BF64(r);
  });
  if (mode != FE_TONEAREST) fesetround(old);
}

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

static uint64_t fp_to_int(double v, int rnd, int dt) {
  int sz = emu_type_size(dt), sg = emu_type_kind(dt) == EMU_K_S;
  if (isnan(v)) return 0;
  switch (rnd) {
  case EMU_RND_RZI:
    v = trunc(v);
    break;
  case EMU_RND_RMI:
    v = floor(v);
    break;
  case EMU_RND_RPI:
    v = ceil(v);
    break;
  default:
    v = nearbyint(v);
    break; /* ties to even in the default mode */
  }
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

/* One lane of cvt; returns the destination value extended to 64 bits. */
static uint64_t cvt1(const emu_insn *in, uint64_t a) {
  int dt = in->type, at = in->type2;
  int dsz = emu_type_size(dt), asz = emu_type_size(at);
  int dk = emu_type_kind(dt), ak = emu_type_kind(at);
  int ftz = in->flags & EMU_F_FTZ, sat = in->flags & EMU_F_SAT;
  uint64_t r;
  if (dk != EMU_K_F && ak != EMU_K_F) {
    if (sat) {
      /* clamp the source value into the destination range */
      if (ak == EMU_K_S) {
        int64_t v = sext(a, asz);
        int64_t lo = dk == EMU_K_S ? (dsz == 8 ? INT64_MIN : -(1ll << (8 * dsz - 1))) : 0;
        int64_t hi = dk == EMU_K_S ? (dsz == 8 ? INT64_MAX : (1ll << (8 * dsz - 1)) - 1)
                                   : (dsz == 8 ? INT64_MAX : (int64_t)((1ull << (8 * dsz)) - 1));
        v = v < lo ? lo : v > hi ? hi : v;
        a = (uint64_t)v;
      } else {
        uint64_t v = zext(a, asz);
        uint64_t hi = dk == EMU_K_S ? (dsz == 8 ? (uint64_t)INT64_MAX : (1ull << (8 * dsz - 1)) - 1)
                                    : (dsz == 8 ? UINT64_MAX : (1ull << (8 * dsz)) - 1);
        a = v > hi ? hi : v;
      }
    } else
      a = ak == EMU_K_S ? (uint64_t)sext(a, asz) : zext(a, asz);
    r = a;
  } else if (ak == EMU_K_F && dk != EMU_K_F) {
    double v;
    if (at == EMU_T_F32) {
      float f = F32(a);
      if (ftz) f = ftz32(f);
      v = f;
    } else
      v = F64(a);
    r = fp_to_int(v, in->rnd, dt);
  } else if (ak != EMU_K_F) {
    uint64_t mag;
    int neg = 0;
    if (ak == EMU_K_S) {
      int64_t v = sext(a, asz);
      neg = v < 0;
      mag = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    } else
      mag = zext(a, asz);
    double d = int_to_fp(mag, neg, dt == EMU_T_F32 ? 24 : 53, in->rnd);
    if (dt == EMU_T_F32) {
      float f = (float)d; /* exact: d already has 24 significant bits */
      if (sat) f = f < 0 ? 0.0f : f > 1 ? 1.0f : f;
      return BF32(f);
    }
    if (sat) d = d < 0 ? 0.0 : d > 1 ? 1.0 : d;
    return BF64(d);
  } else {
    /* float -> float */
    double v;
    if (at == EMU_T_F32) {
      float f = F32(a);
      if (ftz) f = ftz32(f);
      v = f;
    } else
      v = F64(a);
    if (dt == EMU_T_F32) {
      float f;
      if (at == EMU_T_F64) {
        int old = fegetround(), mode = rnd_mode(in->rnd);
        if (mode != FE_TONEAREST) fesetround(mode);
        volatile double vv = v;
        f = (float)vv;
        if (mode != FE_TONEAREST) fesetround(old);
      } else {
        f = (float)v;
        switch (in->rnd) {
        case EMU_RND_RNI:
          f = rintf(f);
          break;
        case EMU_RND_RZI:
          f = truncf(f);
          break;
        case EMU_RND_RMI:
          f = floorf(f);
          break;
        case EMU_RND_RPI:
          f = ceilf(f);
          break;
        default:
          break;
        }
      }
      if (sat) f = isnan(f) ? 0.0f : f < 0 ? 0.0f : f > 1 ? 1.0f : f;
      if (ftz) f = ftz32(f);
      return BF32(f);
    }
    if (at == EMU_T_F64) switch (in->rnd) {
      case EMU_RND_RNI:
        v = rint(v);
        break;
      case EMU_RND_RZI:
        v = trunc(v);
        break;
      case EMU_RND_RMI:
        v = floor(v);
        break;
      case EMU_RND_RPI:
        v = ceil(v);
        break;
      default:
        break;
      }
    if (sat) v = isnan(v) ? 0.0 : v < 0 ? 0.0 : v > 1 ? 1.0 : v;
    return BF64(v);
  }
  /* integer destination: truncate, then extend by the destination's signedness */
  return dk == EMU_K_S ? (uint64_t)sext(r, dsz) : zext(r, dsz);
}

/* setp for one lane */
static int cmp_int(int cmp, uint64_t a, uint64_t b, int sg) {
  int64_t x = (int64_t)a, y = (int64_t)b;
  switch (cmp) {
  case EMU_CMP_EQ:
    return a == b;
  case EMU_CMP_NE:
    return a != b;
  case EMU_CMP_LT:
    return sg ? x < y : a < b;
  case EMU_CMP_LE:
    return sg ? x <= y : a <= b;
  case EMU_CMP_GT:
    return sg ? x > y : a > b;
  case EMU_CMP_GE:
    return sg ? x >= y : a >= b;
  case EMU_CMP_LO:
    return a < b;
  case EMU_CMP_LS:
    return a <= b;
  case EMU_CMP_HI:
    return a > b;
  case EMU_CMP_HS:
    return a >= b;
  default:
    return 0;
  }
}
static int cmp_flt(int cmp, double a, double b) {
  int un = isnan(a) || isnan(b);
  switch (cmp) {
  case EMU_CMP_EQ:
    return !un && a == b;
  case EMU_CMP_NE:
    return !un && a != b;
  case EMU_CMP_LT:
    return !un && a < b;
  case EMU_CMP_LE:
    return !un && a <= b;
  case EMU_CMP_GT:
    return !un && a > b;
  case EMU_CMP_GE:
    return !un && a >= b;
  case EMU_CMP_EQU:
    return un || a == b;
  case EMU_CMP_NEU:
    return un || a != b;
  case EMU_CMP_LTU:
    return un || a < b;
  case EMU_CMP_LEU:
    return un || a <= b;
  case EMU_CMP_GTU:
    return un || a > b;
  case EMU_CMP_GEU:
    return un || a >= b;
  case EMU_CMP_NUM:
    return !un;
  case EMU_CMP_NAN:
    return un;
  default:
    return 0;
  }
}

/* ---------- memory ---------- */

typedef struct {
  uint64_t sect[128];
  int n;
} sectors;

static int count_distinct(uint64_t *v, int n) {
  /* insertion sort: n <= 128 and usually already ordered */
  for (int i = 1; i < n; i++) {
    uint64_t x = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > x) v[j + 1] = v[j], j--;
    v[j + 1] = x;
  }
  int d = 0;
  for (int i = 0; i < n; i++)
    if (i == 0 || v[i] != v[i - 1]) v[d++] = v[i];
  return d;
}

/* Resolves the address of lane l: the space actually addressed and a host pointer. */
static CUresult resolve(ctx *c, warp *w, int l, const emu_insn *in, uint64_t a, uint32_t bytes,
                        int *space, uint8_t **host) {
  int sp = in->space;
  if (a % bytes) {
    return fail(c, w, l, in, CUDA_ERROR_MISALIGNED_ADDRESS,
                "misaligned %u-byte %s access at address 0x%llx", bytes, space_name(sp),
                (unsigned long long)a);
  }
  if (sp == EMU_SP_GENERIC) {
    if (a >= EMU_SHARED_WINDOW && a < EMU_SHARED_WINDOW + EMU_WINDOW_SIZE) {
      sp = EMU_SP_SHARED;
      a -= EMU_SHARED_WINDOW;
    } else if (a >= EMU_LOCAL_WINDOW && a < EMU_LOCAL_WINDOW + EMU_WINDOW_SIZE) {
      sp = EMU_SP_LOCAL;
      a -= EMU_LOCAL_WINDOW;
    } else
      sp = EMU_SP_GLOBAL;
  }
  *space = sp;
  switch (sp) {
  case EMU_SP_GLOBAL:
  case EMU_SP_CONST:
    *host = emu_mem_host(a, bytes);
    if (!*host)
      return fail(c, w, l, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                  "out-of-bounds %s access of %u bytes at address 0x%llx (no allocation "
                  "contains it)",
                  space_name(in->space == EMU_SP_GENERIC ? EMU_SP_GLOBAL : in->space), bytes,
                  (unsigned long long)a);
    return CUDA_SUCCESS;
  case EMU_SP_SHARED:
    if (a >= c->shared_size || c->shared_size - a < bytes)
      return fail(c, w, l, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                  "out-of-bounds shared access of %u bytes at offset 0x%llx (shared size %u)",
                  bytes, (unsigned long long)a, c->shared_size);
    *host = c->shared + a;
    return CUDA_SUCCESS;
  case EMU_SP_LOCAL:
    if (a >= c->local_size || c->local_size - a < bytes)
      return fail(c, w, l, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                  "out-of-bounds local access of %u bytes at offset 0x%llx (local size %u)", bytes,
                  (unsigned long long)a, c->local_size);
    *host = c->local + (size_t)(w->tid0 + (uint32_t)l) * c->local_size + a;
    return CUDA_SUCCESS;
  case EMU_SP_PARAM:
    if (a >= c->param_size || c->param_size - a < bytes)
      return fail(c, w, l, in, CUDA_ERROR_ILLEGAL_ADDRESS,
                  "out-of-bounds kernel parameter access of %u bytes at offset 0x%llx", bytes,
                  (unsigned long long)a);
    *host = (uint8_t *)c->params + a;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_UNKNOWN;
}

static CUresult race_check(ctx *c, warp *w, int l, const emu_insn *in, uint64_t off, uint32_t bytes,
                           int is_write) {
  int other, oline;
  int tid = (int)(w->tid0 + (uint32_t)l);
  int k = emu_race_access(&c->race, (uint32_t)off, bytes, tid, in->line, is_write, &other, &oline);
  if (!k) return CUDA_SUCCESS;
  static const char *const kinds[] = {"", "read-after-write", "write-after-read",
                                      "write-after-write"};
  if (other < 0)
    return fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                "shared-memory race (%s) on offset 0x%llx: %s by this thread, read by other "
                "threads (last at line %d) with no barrier in between",
                kinds[k], (unsigned long long)off, is_write ? "written" : "read", oline);
  unsigned t[3];
  thread_coords(c, (uint32_t)other, t);
  return fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
              "shared-memory race (%s) on offset 0x%llx: %s by this thread, %s by thread "
              "(%u,%u,%u) at line %d with no barrier in between",
              kinds[k], (unsigned long long)off, is_write ? "written" : "read",
              k == 2 ? "read" : "written", t[0], t[1], t[2], oline);
}

static inline uint64_t load_val(const uint8_t *h, int bytes) {
  switch (bytes) {
  case 1:
    return *h;
  case 2: {
    uint16_t v;
    memcpy(&v, h, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    memcpy(&v, h, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, h, 8);
    return v;
  }
  }
}
static inline void store_val(uint8_t *h, uint64_t v, int bytes) {
  switch (bytes) {
  case 1:
    *h = (uint8_t)v;
    break;
  case 2: {
    uint16_t x = (uint16_t)v;
    memcpy(h, &x, 2);
    break;
  }
  case 4: {
    uint32_t x = (uint32_t)v;
    memcpy(h, &x, 4);
    break;
  }
  default:
    memcpy(h, &v, 8);
    break;
  }
}

static void count_bank_conflicts(ctx *c, const uint64_t *offs, int n, uint32_t bytes) {
  uint64_t words[128];
  int nw = 0;
  for (int k = 0; k < n && nw < 128; k++)
    for (uint64_t wd = offs[k] >> 2; wd <= (offs[k] + bytes - 1) >> 2 && nw < 128; wd++)
      words[nw++] = wd;
  nw = count_distinct(words, nw);
  int per[32] = {0}, mx = 0;
  for (int k = 0; k < nw; k++) {
    int b = (int)(words[k] & 31);
    if (++per[b] > mx) mx = per[b];
  }
  int ideal = (nw + 31) / 32;
  if (ideal < 1) ideal = 1;
  if (mx > ideal) c->st->bank_conflicts += (uint64_t)(mx - ideal);
}

static CUresult mem_op(ctx *c, warp *w, const emu_insn *in, uint32_t gm) {
  uint64_t *R = w->R;
  const uint64_t *A = R + (size_t)in->s[0] * 32;
  int es = emu_type_size(in->type), vec = in->vec, isld = in->op == EMU_OP_LD;
  uint32_t bytes = (uint32_t)(es * vec);
  int sg = emu_type_kind(in->type) == EMU_K_S;
  uint64_t gsec[64], shoff[32];
  int ng = 0, nsh = 0, nglob = 0;
  for (uint32_t mm = gm; mm; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    uint64_t a = A[l] + (uint64_t)in->off;
    int sp;
    uint8_t *h;
    CUresult rc = resolve(c, w, l, in, a, bytes, &sp, &h);
    if (rc) return rc;
    if (sp == EMU_SP_GLOBAL) {
      nglob++;
      gsec[ng++] = a >> 5;
      if (((a + bytes - 1) >> 5) != a >> 5) gsec[ng++] = (a + bytes - 1) >> 5;
    } else if (sp == EMU_SP_SHARED) {
      uint64_t off = (uint64_t)(h - c->shared);
      shoff[nsh++] = off;
      if (c->racecheck) {
        rc = race_check(c, w, l, in, off, bytes, !isld);
        if (rc) return rc;
      }
    }
    if (isld) {
      for (int k = 0; k < vec; k++) {
        uint64_t v = load_val(h + k * es, es);
        if (sg) v = (uint64_t)sext(v, es);
        if (in->rsz < 8) v = zext(v, in->rsz);
        R[(size_t)in->d[k] * 32 + l] = v;
      }
    } else {
      for (int k = 0; k < vec; k++) store_val(h + k * es, R[(size_t)in->s[1 + k] * 32 + l], es);
    }
  }
  emu_stats *st = c->st;
  if (nglob) {
    int d = count_distinct(gsec, ng);
    st->gsectors += (uint64_t)d;
    for (int k = 0; k < d; k++) emu_stats_sector(st, gsec[k]);
    if (isld)
      st->gld_req++, st->gld_bytes += (uint64_t)nglob * bytes;
    else
      st->gst_req++, st->gst_bytes += (uint64_t)nglob * bytes;
  }
  if (nsh) {
    if (isld)
      st->sh_loads++;
    else
      st->sh_stores++;
    count_bank_conflicts(c, shoff, nsh, bytes);
  }
  return CUDA_SUCCESS;
}

static CUresult atom_op(ctx *c, warp *w, const emu_insn *in, uint32_t gm) {
  uint64_t *R = w->R;
  const uint64_t *A = R + (size_t)in->s[0] * 32;
  const uint64_t *B = R + (size_t)in->s[1] * 32;
  const uint64_t *Cc = in->mode == EMU_ATOM_CAS ? R + (size_t)in->s[2] * 32 : NULL;
  uint64_t *D = R + (size_t)in->d[0] * 32;
  int t = in->type, es = emu_type_size(t), sg = emu_type_kind(t) == EMU_K_S;
  /* lanes in lane order: one valid serialisation of the warp's atomics */
  for (uint32_t mm = gm; mm; mm &= mm - 1) {
    int l = __builtin_ctz(mm);
    uint64_t a = A[l] + (uint64_t)in->off;
    int sp;
    uint8_t *h;
    CUresult rc = resolve(c, w, l, in, a, (uint32_t)es, &sp, &h);
    if (rc) return rc;
    if (sp == EMU_SP_GLOBAL) emu_stats_sector(c->st, a >> 5);
    uint64_t old = load_val(h, es), b = B[l], r;
    switch (in->mode) {
    case EMU_ATOM_ADD:
      if (t == EMU_T_F32) /* atom.add.f32: round to nearest, subnormals flushed */
        r = BF32(ftz32(ftz32(F32(old)) + ftz32(F32(b))));
      else if (t == EMU_T_F64)
        r = BF64(F64(old) + F64(b));
      else
        r = old + b;
      break;
    case EMU_ATOM_MIN:
      r = sg ? (sext(old, es) < sext(b, es) ? old : b) : (zext(old, es) < zext(b, es) ? old : b);
      break;
    case EMU_ATOM_MAX:
      r = sg ? (sext(old, es) > sext(b, es) ? old : b) : (zext(old, es) > zext(b, es) ? old : b);
      break;
    case EMU_ATOM_EXCH:
      r = b;
      break;
    case EMU_ATOM_CAS:
      r = zext(old, es) == zext(b, es) ? Cc[l] : old;
      break;
    case EMU_ATOM_AND:
      r = old & b;
      break;
    case EMU_ATOM_OR:
      r = old | b;
      break;
    case EMU_ATOM_XOR:
      r = old ^ b;
      break;
    case EMU_ATOM_INC:
      r = (uint32_t)old >= (uint32_t)b ? 0 : old + 1;
      break;
    case EMU_ATOM_DEC:
      r = ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? b : old - 1;
      break;
    default:
      r = old;
      break;
    }
    store_val(h, r, es);
    D[l] = sg ? zext((uint64_t)sext(old, es), es) : old;
  }
  c->st->atomics++;
  return CUDA_SUCCESS;
}

/* ---------- the warp loop ---------- */

static CUresult unwritten(ctx *c, warp *w, const emu_insn *in, uint32_t slot, uint32_t bad) {
  char name[64];
  emu_slot_name(c->f, slot, name, sizeof name);
  return fail(c, w, __builtin_ctz(bad), in, CUDA_ERROR_LAUNCH_FAILED,
              "read of register %s, which this thread never wrote", name);
}

static CUresult run_warp(ctx *c, warp *w) {
  const emu_insn *code = c->code;
  uint64_t *R = w->R;
  uint32_t *W = w->W;
  emu_stats *st = c->st;
  uint32_t pc = w->pc, mask = w->mask;
  CUresult rc = CUDA_SUCCESS;
#define SYNC_OUT() (w->pc = pc, w->mask = mask)
#define SYNC_IN() (pc = w->pc, mask = w->mask)
  while (mask) {
    const emu_insn *in = &code[pc];
    uint32_t gm = mask;
    if (!(in->flags & EMU_F_NOSTAT)) {
      int n = __builtin_popcount(mask);
      st->instructions += (uint64_t)n;
      st->by_class[in->cls] += (uint64_t)n;
    }
    if (in->guard >= 0) {
      const uint64_t *G = R + (size_t)in->guard * 32;
      uint32_t bad = mask & ~W[in->guard];
      if (bad) {
        SYNC_OUT();
        return unwritten(c, w, in, (uint32_t)in->guard, bad);
      }
      uint32_t p = 0;
      for (uint32_t mm = mask; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        p |= (uint32_t)(G[l] & 1) << l;
      }
      gm = (in->flags & EMU_F_GNEG) ? mask & ~p : mask & p;
    }
    for (int k = 0; k < in->nsrc; k++) {
      uint32_t bad = gm & ~W[in->s[k]];
      if (bad) {
        SYNC_OUT();
        return unwritten(c, w, in, in->s[k], bad);
      }
    }
    uint64_t *D = R + (size_t)in->d[0] * 32;
    const uint64_t *A = R + (size_t)in->s[0] * 32;
    const uint64_t *B = R + (size_t)in->s[1] * 32;
    const uint64_t *Cc = R + (size_t)in->s[2] * 32;
    uint32_t next = pc + 1;
    if (gm) switch (in->code) {
      /* ---- integer ---- */
      case C(EMU_OP_ADD, EMU_TK_U32):
        LANES(D[l] = (uint32_t)(A[l] + B[l]));
        break;
      case C(EMU_OP_ADD, EMU_TK_S32):
        if (in->flags & EMU_F_SAT) {
          LANES({
            int64_t v = (int64_t)(int32_t)A[l] + (int32_t)B[l];
            v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
            D[l] = (uint32_t)v;
          });
        } else
          LANES(D[l] = (uint32_t)(A[l] + B[l]));
        break;
      case C(EMU_OP_ADD, EMU_TK_U64):
      case C(EMU_OP_ADD, EMU_TK_S64):
        LANES(D[l] = A[l] + B[l]);
        break;
      case C(EMU_OP_ADD, EMU_TK_U16):
      case C(EMU_OP_ADD, EMU_TK_S16):
        LANES(D[l] = (uint16_t)(A[l] + B[l]));
        break;
      case C(EMU_OP_SUB, EMU_TK_U32):
        LANES(D[l] = (uint32_t)(A[l] - B[l]));
        break;
      case C(EMU_OP_SUB, EMU_TK_S32):
        if (in->flags & EMU_F_SAT) {
          LANES({
            int64_t v = (int64_t)(int32_t)A[l] - (int32_t)B[l];
            v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
            D[l] = (uint32_t)v;
          });
        } else
          LANES(D[l] = (uint32_t)(A[l] - B[l]));
        break;
      case C(EMU_OP_SUB, EMU_TK_U64):
      case C(EMU_OP_SUB, EMU_TK_S64):
        LANES(D[l] = A[l] - B[l]);
        break;
      case C(EMU_OP_SUB, EMU_TK_U16):
      case C(EMU_OP_SUB, EMU_TK_S16):
        LANES(D[l] = (uint16_t)(A[l] - B[l]));
        break;
      case C(EMU_OP_MUL, EMU_TK_U32):
      case C(EMU_OP_MUL, EMU_TK_S32):
        LANES(D[l] = (uint32_t)((uint32_t)A[l] * (uint32_t)B[l]));
        break;
      case C(EMU_OP_MUL, EMU_TK_U64):
      case C(EMU_OP_MUL, EMU_TK_S64):
        LANES(D[l] = A[l] * B[l]);
        break;
      case C(EMU_OP_MUL, EMU_TK_U16):
      case C(EMU_OP_MUL, EMU_TK_S16):
        LANES(D[l] = (uint16_t)((uint32_t)A[l] * (uint32_t)B[l]));
        break;
      case C(EMU_OP_MULWIDE, EMU_TK_S32):
        LANES(D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]));
        break;
      case C(EMU_OP_MULWIDE, EMU_TK_U32):
        LANES(D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
        break;
      case C(EMU_OP_MULWIDE, EMU_TK_S16):
        LANES(D[l] = (uint32_t)((int32_t)(int16_t)A[l] * (int32_t)(int16_t)B[l]));
        break;
      case C(EMU_OP_MULWIDE, EMU_TK_U16):
        LANES(D[l] = (uint32_t)((uint32_t)(uint16_t)A[l] * (uint16_t)B[l]));
        break;
      case C(EMU_OP_MULHI, EMU_TK_S32):
        LANES(D[l] = (uint32_t)(((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32));
        break;
      case C(EMU_OP_MULHI, EMU_TK_U32):
        LANES(D[l] = (uint32_t)(((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]) >> 32));
        break;
      case C(EMU_OP_MULHI, EMU_TK_S64):
        LANES(D[l] = (uint64_t)(((__int128)(int64_t)A[l] * (int64_t)B[l]) >> 64));
        break;
      case C(EMU_OP_MULHI, EMU_TK_U64):
        LANES(D[l] = (uint64_t)(((unsigned __int128)A[l] * B[l]) >> 64));
        break;
      case C(EMU_OP_MULHI, EMU_TK_S16):
        LANES(D[l] = (uint16_t)(((int32_t)(int16_t)A[l] * (int16_t)B[l]) >> 16));
        break;
      case C(EMU_OP_MULHI, EMU_TK_U16):
        LANES(D[l] = (uint16_t)(((uint32_t)(uint16_t)A[l] * (uint16_t)B[l]) >> 16));
        break;
      case C(EMU_OP_MAD, EMU_TK_U32):
      case C(EMU_OP_MAD, EMU_TK_S32):
        LANES(D[l] = (uint32_t)((uint32_t)A[l] * (uint32_t)B[l] + (uint32_t)Cc[l]));
        break;
      case C(EMU_OP_MAD, EMU_TK_U64):
      case C(EMU_OP_MAD, EMU_TK_S64):
        LANES(D[l] = A[l] * B[l] + Cc[l]);
        break;
      case C(EMU_OP_MAD, EMU_TK_U16):
      case C(EMU_OP_MAD, EMU_TK_S16):
        LANES(D[l] = (uint16_t)((uint32_t)A[l] * (uint32_t)B[l] + (uint32_t)Cc[l]));
        break;
      case C(EMU_OP_MADWIDE, EMU_TK_S32):
        LANES(D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]) + Cc[l]);
        break;
      case C(EMU_OP_MADWIDE, EMU_TK_U32):
        LANES(D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l] + Cc[l]);
        break;
      case C(EMU_OP_MADWIDE, EMU_TK_S16):
        LANES(D[l] = (uint32_t)((int32_t)(int16_t)A[l] * (int32_t)(int16_t)B[l] + (int32_t)Cc[l]));
        break;
      case C(EMU_OP_MADWIDE, EMU_TK_U16):
        LANES(D[l] = (uint32_t)((uint32_t)(uint16_t)A[l] * (uint16_t)B[l] + (uint32_t)Cc[l]));
        break;
      case C(EMU_OP_MADHI, EMU_TK_S32):
        if (in->flags & EMU_F_SAT) {
          LANES({
            int64_t v = (((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32) + (int32_t)Cc[l];
            v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
            D[l] = (uint32_t)v;
          });
        } else
          LANES(D[l] = (uint32_t)((((int64_t)(int32_t)A[l] * (int32_t)B[l]) >> 32) + Cc[l]));
        break;
      case C(EMU_OP_MADHI, EMU_TK_U32):
        LANES(D[l] = (uint32_t)((((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]) >> 32) + Cc[l]));
        break;
      case C(EMU_OP_MADHI, EMU_TK_S64):
        LANES(D[l] = (uint64_t)(((__int128)(int64_t)A[l] * (int64_t)B[l]) >> 64) + Cc[l]);
        break;
      case C(EMU_OP_MADHI, EMU_TK_U64):
        LANES(D[l] = (uint64_t)(((unsigned __int128)A[l] * B[l]) >> 64) + Cc[l]);
        break;
      case C(EMU_OP_MADHI, EMU_TK_S16):
        LANES(D[l] = (uint16_t)((((int32_t)(int16_t)A[l] * (int16_t)B[l]) >> 16) + Cc[l]));
        break;
      case C(EMU_OP_MADHI, EMU_TK_U16):
        LANES(D[l] = (uint16_t)((((uint32_t)(uint16_t)A[l] * (uint16_t)B[l]) >> 16) + Cc[l]));
        break;
        /* Division by zero is unspecified in PTX; the emulator returns all ones (quotient)
         * and the dividend (remainder). The overflowing INT_MIN / -1 wraps. */
        CI(EMU_OP_DIV) : {
          int sz = emu_type_size(in->type), sg = emu_type_kind(in->type) == EMU_K_S;
          LANES({
            uint64_t a = A[l], b = B[l], r;
            if (zext(b, sz) == 0)
              r = ~0ull;
            else if (sg) {
              int64_t x = sext(a, sz), y = sext(b, sz);
              r = (y == -1) ? (uint64_t)0 - (uint64_t)x : (uint64_t)(x / y);
            } else
              r = zext(a, sz) / zext(b, sz);
            D[l] = zext(r, sz);
          });
          break;
        }
        CI(EMU_OP_REM) : {
          int sz = emu_type_size(in->type), sg = emu_type_kind(in->type) == EMU_K_S;
          LANES({
            uint64_t a = A[l], b = B[l], r;
            if (zext(b, sz) == 0)
              r = a;
            else if (sg) {
              int64_t x = sext(a, sz), y = sext(b, sz);
              r = y == -1 ? 0 : (uint64_t)(x % y);
            } else
              r = zext(a, sz) % zext(b, sz);
            D[l] = zext(r, sz);
          });
          break;
        }
        CI(EMU_OP_MIN) : {
          int sz = emu_type_size(in->type), sg = emu_type_kind(in->type) == EMU_K_S;
          if (sg)
            LANES(D[l] = zext(sext(A[l], sz) < sext(B[l], sz) ? A[l] : B[l], sz));
          else
            LANES(D[l] = zext(A[l], sz) < zext(B[l], sz) ? zext(A[l], sz) : zext(B[l], sz));
          break;
        }
        CI(EMU_OP_MAX) : {
          int sz = emu_type_size(in->type), sg = emu_type_kind(in->type) == EMU_K_S;
          if (sg)
            LANES(D[l] = zext(sext(A[l], sz) > sext(B[l], sz) ? A[l] : B[l], sz));
          else
            LANES(D[l] = zext(A[l], sz) > zext(B[l], sz) ? zext(A[l], sz) : zext(B[l], sz));
          break;
        }
        CI(EMU_OP_ABS) : {
          int sz = emu_type_size(in->type);
          LANES({
            int64_t v = sext(A[l], sz);
            D[l] = zext(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, sz);
          });
          break;
        }
        CI(EMU_OP_NEG) : {
          int sz = emu_type_size(in->type);
          LANES(D[l] = zext((uint64_t)0 - A[l], sz));
          break;
        }
        CI(EMU_OP_AND) : {
          LANES(D[l] = A[l] & B[l]);
          break;
        }
        CI(EMU_OP_OR) : {
          LANES(D[l] = A[l] | B[l]);
          break;
        }
        CI(EMU_OP_XOR) : {
          LANES(D[l] = A[l] ^ B[l]);
          break;
        }
        CI(EMU_OP_NOT) : {
          int sz = emu_type_size(in->type);
          LANES(D[l] = zext(~A[l], sz));
          break;
        }
        CI(EMU_OP_CNOT) : {
          int sz = emu_type_size(in->type);
          LANES(D[l] = zext(A[l], sz) == 0);
          break;
        }
      case C(EMU_OP_AND, EMU_TK_PRED):
        LANES(D[l] = A[l] & B[l]);
        break;
      case C(EMU_OP_OR, EMU_TK_PRED):
        LANES(D[l] = A[l] | B[l]);
        break;
      case C(EMU_OP_XOR, EMU_TK_PRED):
        LANES(D[l] = A[l] ^ B[l]);
        break;
      case C(EMU_OP_NOT, EMU_TK_PRED):
        LANES(D[l] = !A[l]);
        break;
      /* Shift amounts larger than the width are clamped to the width. */
      case C(EMU_OP_SHL, EMU_TK_U32):
        LANES(D[l] = (uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (uint32_t)B[l]));
        break;
      case C(EMU_OP_SHL, EMU_TK_U64):
        LANES(D[l] = (uint32_t)B[l] >= 64 ? 0 : A[l] << (uint32_t)B[l]);
        break;
      case C(EMU_OP_SHL, EMU_TK_U16):
        LANES(D[l] = (uint32_t)B[l] >= 16 ? 0 : (uint16_t)(A[l] << (uint32_t)B[l]));
        break;
        CI(EMU_OP_SHR) : {
          int sz = emu_type_size(in->type), bits = 8 * sz;
          if (emu_type_kind(in->type) == EMU_K_S)
            LANES({
              uint32_t s = (uint32_t)B[l];
              int64_t v = sext(A[l], sz);
              D[l] = zext((uint64_t)(v >> (s >= (uint32_t)bits ? bits - 1 : (int)s)), sz);
            });
          else
            LANES({
              uint32_t s = (uint32_t)B[l];
              D[l] = s >= (uint32_t)bits ? 0 : zext(A[l], sz) >> s;
            });
          break;
        }
        CI(EMU_OP_POPC) : {
          int sz = emu_type_size(in->type);
          LANES(D[l] = (uint32_t)__builtin_popcountll(zext(A[l], sz)));
          break;
        }
        CI(EMU_OP_CLZ) : {
          int sz = emu_type_size(in->type);
          LANES({
            uint64_t v = zext(A[l], sz);
            D[l] = v ? (uint32_t)(__builtin_clzll(v) - (64 - 8 * sz)) : (uint32_t)(8 * sz);
          });
          break;
        }
        CI(EMU_OP_BREV) : {
          int sz = emu_type_size(in->type);
          LANES({
            uint64_t v = A[l], r = 0;
            for (int k = 0; k < 8 * sz; k++) r |= ((v >> k) & 1) << (8 * sz - 1 - k);
            D[l] = r;
          });
          break;
        }
        CI(EMU_OP_BFE) : {
          int sz = emu_type_size(in->type), bits = 8 * sz, sg = emu_type_kind(in->type) == EMU_K_S;
          LANES({
            uint32_t pos = (uint32_t)B[l] & 0xff, len = (uint32_t)Cc[l] & 0xff;
            uint64_t a = zext(A[l], sz), r;
            int sbit;
            if (sg) {
              uint32_t sp = pos + len - 1 > (uint32_t)bits - 1 ? (uint32_t)bits - 1 : pos + len - 1;
              sbit = len == 0 ? 0 : (int)((a >> sp) & 1);
            } else
              sbit = 0;
            r = 0;
            for (uint32_t k = 0; k < (uint32_t)bits; k++) {
              uint64_t bit =
                  (k < len && pos + k < (uint32_t)bits) ? (a >> (pos + k)) & 1 : (uint64_t)sbit;
              r |= bit << k;
            }
            D[l] = r;
          });
          break;
        }
        CI(EMU_OP_BFI) : {
          int sz = emu_type_size(in->type), bits = 8 * sz;
          const uint64_t *E = R + (size_t)in->s[3] * 32;
          LANES({
            uint32_t pos = (uint32_t)Cc[l] & 0xff, len = (uint32_t)E[l] & 0xff;
            uint64_t f = B[l];
            for (uint32_t k = 0; k < len && pos + k < (uint32_t)bits; k++) {
              uint64_t bit = (A[l] >> k) & 1;
              f = (f & ~(1ull << (pos + k))) | bit << (pos + k);
            }
            D[l] = zext(f, sz);
          });
          break;
        }
      case C(EMU_OP_LOP3, EMU_TK_U32): {
        uint32_t lut = in->mode;
        LANES({
          uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], cc = (uint32_t)Cc[l], r = 0;
          for (int k = 0; k < 8; k++)
            if (lut >> k & 1) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? cc : ~cc);
          D[l] = r;
        });
        break;
      }
      /* ---- floating point ---- */
      case C(EMU_OP_ADD, EMU_TK_F32):
        if (in->rnd == EMU_RND_RN && !(in->flags & (EMU_F_FTZ | EMU_F_SAT)))
          LANES(D[l] = BF32(F32(A[l]) + F32(B[l])));
        else
          f32_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_SUB, EMU_TK_F32):
        if (in->rnd == EMU_RND_RN && !(in->flags & (EMU_F_FTZ | EMU_F_SAT)))
          LANES(D[l] = BF32(F32(A[l]) - F32(B[l])));
        else
          f32_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_MUL, EMU_TK_F32):
        if (in->rnd == EMU_RND_RN && !(in->flags & (EMU_F_FTZ | EMU_F_SAT)))
          LANES(D[l] = BF32(F32(A[l]) * F32(B[l])));
        else
          f32_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_FMA, EMU_TK_F32):
        if (in->rnd == EMU_RND_RN && !(in->flags & (EMU_F_FTZ | EMU_F_SAT)))
          LANES(D[l] = BF32(fmaf(F32(A[l]), F32(B[l]), F32(Cc[l]))));
        else
          f32_op(in, gm, D, A, B, Cc);
        break;
      case C(EMU_OP_DIV, EMU_TK_F32):
      case C(EMU_OP_MIN, EMU_TK_F32):
      case C(EMU_OP_MAX, EMU_TK_F32):
      case C(EMU_OP_COPYSIGN, EMU_TK_F32):
        f32_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_ABS, EMU_TK_F32):
      case C(EMU_OP_NEG, EMU_TK_F32):
      case C(EMU_OP_SQRT, EMU_TK_F32):
      case C(EMU_OP_RCP, EMU_TK_F32):
      case C(EMU_OP_RSQRT, EMU_TK_F32):
      case C(EMU_OP_SIN, EMU_TK_F32):
      case C(EMU_OP_COS, EMU_TK_F32):
      case C(EMU_OP_LG2, EMU_TK_F32):
      case C(EMU_OP_EX2, EMU_TK_F32):
        f32_op(in, gm, D, A, NULL, NULL);
        break;
      case C(EMU_OP_ADD, EMU_TK_F64):
        if (in->rnd == EMU_RND_RN)
          LANES(D[l] = BF64(F64(A[l]) + F64(B[l])));
        else
          f64_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_MUL, EMU_TK_F64):
        if (in->rnd == EMU_RND_RN)
          LANES(D[l] = BF64(F64(A[l]) * F64(B[l])));
        else
          f64_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_FMA, EMU_TK_F64):
        f64_op(in, gm, D, A, B, Cc);
        break;
      case C(EMU_OP_SUB, EMU_TK_F64):
      case C(EMU_OP_DIV, EMU_TK_F64):
      case C(EMU_OP_MIN, EMU_TK_F64):
      case C(EMU_OP_MAX, EMU_TK_F64):
      case C(EMU_OP_COPYSIGN, EMU_TK_F64):
        f64_op(in, gm, D, A, B, NULL);
        break;
      case C(EMU_OP_ABS, EMU_TK_F64):
      case C(EMU_OP_NEG, EMU_TK_F64):
      case C(EMU_OP_SQRT, EMU_TK_F64):
      case C(EMU_OP_RCP, EMU_TK_F64):
      case C(EMU_OP_RSQRT, EMU_TK_F64):
        f64_op(in, gm, D, A, NULL, NULL);
        break;
      case C(EMU_OP_TESTP, EMU_TK_F32):
      case C(EMU_OP_TESTP, EMU_TK_F64): {
        int is32 = in->tk == EMU_TK_F32;
        LANES({
          double v = is32 ? (double)F32(A[l]) : F64(A[l]);
          int cl = fpclassify(v);
          if (is32) cl = fpclassify(F32(A[l]));
          int r;
          switch (in->mode) {
          case EMU_TESTP_FINITE:
            r = cl != FP_INFINITE && cl != FP_NAN;
            break;
          case EMU_TESTP_INFINITE:
            r = cl == FP_INFINITE;
            break;
          case EMU_TESTP_NUMBER:
            r = cl != FP_NAN;
            break;
          case EMU_TESTP_NAN:
            r = cl == FP_NAN;
            break;
          case EMU_TESTP_NORMAL:
            r = cl == FP_NORMAL;
            break;
          default:
            r = cl == FP_SUBNORMAL;
            break;
          }
          D[l] = (uint64_t)r;
        });
        break;
      }
        /* ---- comparison and selection ---- */
        CI(EMU_OP_SETP) : case C(EMU_OP_SETP, EMU_TK_F32) : case C(EMU_OP_SETP, EMU_TK_F64) : {
          int t = in->type, sz = emu_type_size(t), k = emu_type_kind(t), cmp = in->cmp;
          int bop = in->bop, cneg = (in->sneg >> 2) & 1, hasq = in->ndst == 2;
          uint64_t *Q = R + (size_t)in->d[1] * 32;
          int ftz = in->flags & EMU_F_FTZ;
          LANES({
            int r;
            if (t == EMU_T_F32) {
              float a = F32(A[l]), b = F32(B[l]);
              if (ftz) a = ftz32(a), b = ftz32(b);
              r = cmp_flt(cmp, a, b);
            } else if (t == EMU_T_F64)
              r = cmp_flt(cmp, F64(A[l]), F64(B[l]));
            else if (k == EMU_K_S)
              r = cmp_int(cmp, (uint64_t)sext(A[l], sz), (uint64_t)sext(B[l], sz), 1);
            else
              r = cmp_int(cmp, zext(A[l], sz), zext(B[l], sz), 0);
            int q = !r;
            if (bop) {
              int cv = (int)(Cc[l] & 1) ^ cneg;
              if (bop == EMU_BOP_AND)
                r = r & cv, q = q & cv;
              else if (bop == EMU_BOP_OR)
                r = r | cv, q = q | cv;
              else
                r = r ^ cv, q = q ^ cv;
            }
            D[l] = (uint64_t)r;
            if (hasq) Q[l] = (uint64_t)q;
          });
          break;
        }
        CI(EMU_OP_SELP) : case C(EMU_OP_SELP, EMU_TK_F32) : case C(EMU_OP_SELP, EMU_TK_F64) : {
          LANES(D[l] = (Cc[l] & 1) ? A[l] : B[l]);
          break;
        }
        CI(EMU_OP_MOV)
            : case C(EMU_OP_MOV, EMU_TK_F32)
            : case C(EMU_OP_MOV, EMU_TK_F64) : case C(EMU_OP_MOV, EMU_TK_PRED) : {
          LANES(D[l] = A[l]);
          break;
        }
      case C(EMU_OP_PACK, EMU_TK_U32):
      case C(EMU_OP_PACK, EMU_TK_U64): {
        int es = emu_type_size(in->type2), nv = in->vec;
        LANES({
          uint64_t v = 0;
          for (int k = nv - 1; k >= 0; k--)
            v = v << (8 * es) | zext(R[(size_t)in->s[k] * 32 + l], es);
          D[l] = v;
        });
        break;
      }
      case C(EMU_OP_UNPACK, EMU_TK_U32):
      case C(EMU_OP_UNPACK, EMU_TK_U64): {
        int es = emu_type_size(in->type2), nv = in->vec;
        uint64_t tmp[32];
        LANES(tmp[l] = A[l]);
        LANES({
          for (int k = 0; k < nv; k++)
            R[(size_t)in->d[k] * 32 + l] = zext(tmp[l] >> (8 * es * k), es);
        });
        break;
      }
      case C(EMU_OP_CVT, EMU_TK_U16):
      case C(EMU_OP_CVT, EMU_TK_S16):
      case C(EMU_OP_CVT, EMU_TK_U32):
      case C(EMU_OP_CVT, EMU_TK_S32):
      case C(EMU_OP_CVT, EMU_TK_U64):
      case C(EMU_OP_CVT, EMU_TK_S64):
      case C(EMU_OP_CVT, EMU_TK_F32):
      case C(EMU_OP_CVT, EMU_TK_F64):
      case C(EMU_OP_CVT, EMU_TK_OTHER): {
        int rsz = in->rsz;
        LANES({
          uint64_t v = cvt1(in, A[l]);
          D[l] = rsz < 8 ? zext(v, rsz) : v;
        });
        break;
      }
      case C(EMU_OP_CVTA, EMU_TK_U32):
      case C(EMU_OP_CVTA, EMU_TK_U64): {
        uint64_t base = in->space == EMU_SP_SHARED  ? EMU_SHARED_WINDOW
                        : in->space == EMU_SP_LOCAL ? EMU_LOCAL_WINDOW
                                                    : 0;
        int sz = emu_type_size(in->type);
        if (base)
          LANES(D[l] = zext(zext(A[l], 4) + base, sz));
        else
          LANES(D[l] = zext(A[l], sz));
        break;
      }
      case C(EMU_OP_CVTA_TO, EMU_TK_U32):
      case C(EMU_OP_CVTA_TO, EMU_TK_U64): {
        uint64_t base = in->space == EMU_SP_SHARED  ? EMU_SHARED_WINDOW
                        : in->space == EMU_SP_LOCAL ? EMU_LOCAL_WINDOW
                                                    : 0;
        int sz = emu_type_size(in->type);
        if (base)
          LANES(D[l] = zext(A[l] - base, sz));
        else
          LANES(D[l] = zext(A[l], sz));
        break;
      }
      /* ---- memory ---- */
      case C(EMU_OP_LD, EMU_TK_U16):
      case C(EMU_OP_LD, EMU_TK_S16):
      case C(EMU_OP_LD, EMU_TK_U32):
      case C(EMU_OP_LD, EMU_TK_S32):
      case C(EMU_OP_LD, EMU_TK_U64):
      case C(EMU_OP_LD, EMU_TK_S64):
      case C(EMU_OP_LD, EMU_TK_F32):
      case C(EMU_OP_LD, EMU_TK_F64):
      case C(EMU_OP_LD, EMU_TK_OTHER):
      case C(EMU_OP_ST, EMU_TK_U16):
      case C(EMU_OP_ST, EMU_TK_S16):
      case C(EMU_OP_ST, EMU_TK_U32):
      case C(EMU_OP_ST, EMU_TK_S32):
      case C(EMU_OP_ST, EMU_TK_U64):
      case C(EMU_OP_ST, EMU_TK_S64):
      case C(EMU_OP_ST, EMU_TK_F32):
      case C(EMU_OP_ST, EMU_TK_F64):
      case C(EMU_OP_ST, EMU_TK_OTHER):
        rc = mem_op(c, w, in, gm);
        if (rc) {
          SYNC_OUT();
          return rc;
        }
        break;
      case C(EMU_OP_ATOM, EMU_TK_U32):
      case C(EMU_OP_ATOM, EMU_TK_S32):
      case C(EMU_OP_ATOM, EMU_TK_U64):
      case C(EMU_OP_ATOM, EMU_TK_S64):
      case C(EMU_OP_ATOM, EMU_TK_F32):
      case C(EMU_OP_ATOM, EMU_TK_F64):
        rc = atom_op(c, w, in, gm);
        if (rc) {
          SYNC_OUT();
          return rc;
        }
        break;
      /* ---- control ---- */
      case C(EMU_OP_BRA, EMU_TK_OTHER):
        if (gm == mask)
          next = in->target;
        else {
          set_lpc(w, gm, in->target);
          set_lpc(w, mask & ~gm, pc + 1);
          w->mask = 0;
          resched(w);
          SYNC_IN();
          goto after_sched;
        }
        break;
      case C(EMU_OP_RET, EMU_TK_OTHER):
      case C(EMU_OP_EXIT, EMU_TK_OTHER):
        w->live &= ~gm;
        set_lpc(w, mask & ~gm, pc + 1);
        w->mask = 0;
        resched(w);
        SYNC_IN();
        goto after_sched;
      case C(EMU_OP_BAR, EMU_TK_OTHER): {
        for (uint32_t mm = gm; mm; mm &= mm - 1) {
          int l = __builtin_ctz(mm);
          if ((uint32_t)A[l] > 15) {
            SYNC_OUT();
            return fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED, "barrier id %u out of range",
                        (uint32_t)A[l]);
          }
          if (in->nsrc == 2 && (uint32_t)B[l] != c->nthreads) {
            SYNC_OUT();
            return fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                        "barrier thread count %u differs from the block size %u (not supported)",
                        (uint32_t)B[l], c->nthreads);
          }
          w->barpc[l] = pc;
        }
        w->waiting |= gm;
        set_lpc(w, gm, pc + 1);
        set_lpc(w, mask & ~gm, pc + 1);
        w->mask = 0;
        resched(w);
        SYNC_IN();
        goto after_sched;
      }
      case C(EMU_OP_MEMBAR, EMU_TK_OTHER):
      case C(EMU_OP_NOP, EMU_TK_OTHER):
        break;
      /* ---- warp-level ---- */
      case C(EMU_OP_BARWARP, EMU_TK_OTHER):
      case C(EMU_OP_SHFL, EMU_TK_U32):
      case C(EMU_OP_VOTE, EMU_TK_PRED):
      case C(EMU_OP_VOTE, EMU_TK_U32): {
        const uint64_t *M = R + (size_t)in->s[in->op == EMU_OP_SHFL   ? 3
                                              : in->op == EMU_OP_VOTE ? 1
                                                                      : 0] *
                                    32;
        uint32_t member = (uint32_t)M[__builtin_ctz(gm)];
        for (uint32_t mm = gm; mm; mm &= mm - 1) {
          int l = __builtin_ctz(mm);
          if ((uint32_t)M[l] != member) {
            SYNC_OUT();
            return fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                        "lanes of one warp-synchronous instruction use different member masks "
                        "(0x%08x and 0x%08x)",
                        member, (uint32_t)M[l]);
          }
        }
        if (!(member & (1u << __builtin_ctz(gm)))) {
          SYNC_OUT();
          return fail(c, w, __builtin_ctz(gm), in, CUDA_ERROR_LAUNCH_FAILED,
                      "executing lane is not in the member mask 0x%08x", member);
        }
        uint32_t missing = member & ~gm;
        if (missing && (missing & w->live & ~w->waiting) && !w->forced && gm == mask) {
          /* wait for the other member lanes to arrive here */
          w->parked |= mask;
          set_lpc(w, mask, pc);
          w->mask = 0;
          resched(w);
          SYNC_IN();
          goto after_sched;
        }
        if (missing) {
          SYNC_OUT();
          return fail(c, w, __builtin_ctz(missing), in, CUDA_ERROR_LAUNCH_FAILED,
                      "lane %d is in the member mask 0x%08x but does not execute this "
                      "warp-synchronous instruction (exited, diverged or predicated off)",
                      __builtin_ctz(missing), member);
        }
        if (in->op == EMU_OP_SHFL) {
          uint32_t src[32], outv[32], outp = 0;
          for (uint32_t mm = gm; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            src[l] = (uint32_t)A[l];
          }
          for (uint32_t mm = gm; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            uint32_t bval = (uint32_t)B[l] & 31, cval = (uint32_t)Cc[l] & 31;
            uint32_t segmask = ((uint32_t)Cc[l] >> 8) & 31;
            int maxl = (int)((l & segmask) | (cval & ~segmask)), minl = (int)(l & segmask);
            int j, pv;
            switch (in->mode) {
            case EMU_SHFL_UP:
              j = l - (int)bval;
              pv = j >= maxl;
              break;
            case EMU_SHFL_DOWN:
              j = l + (int)bval;
              pv = j <= maxl;
              break;
            case EMU_SHFL_BFLY:
              j = l ^ (int)bval;
              pv = j <= maxl;
              break;
            default:
              j = minl | (int)(bval & ~segmask);
              pv = j <= maxl;
              break;
            }
            if (!pv) j = l;
            if (!(gm >> j & 1)) {
              SYNC_OUT();
              return fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                          "shfl.sync reads lane %d, which is not active", j);
            }
            outv[l] = src[j];
            outp |= (uint32_t)pv << l;
          }
          uint64_t *P2 = R + (size_t)in->d[1] * 32;
          for (uint32_t mm = gm; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            D[l] = outv[l];
            if (in->flags & EMU_F_HASP) P2[l] = outp >> l & 1;
          }
        } else if (in->op == EMU_OP_VOTE) {
          uint32_t ballot = 0;
          int neg = in->sneg & 1;
          for (uint32_t mm = gm; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            ballot |= (uint32_t)(((A[l] & 1) ^ (uint64_t)neg) & 1) << l;
          }
          uint64_t r;
          switch (in->mode) {
          case EMU_VOTE_ALL:
            r = ballot == gm;
            break;
          case EMU_VOTE_ANY:
            r = ballot != 0;
            break;
          case EMU_VOTE_UNI:
            r = ballot == 0 || ballot == gm;
            break;
          default:
            r = ballot;
            break;
          }
          LANES(D[l] = r);
        }
        w->forced = 0;
        break;
      }
      case C(EMU_OP_ACTIVEMASK, EMU_TK_U32): {
        w->forced = 0;
        uint32_t am = mask;
        LANES(D[l] = am);
        break;
      }
      default:
        SYNC_OUT();
        return fail(c, w, __builtin_ctz(gm), in, CUDA_ERROR_LAUNCH_FAILED,
                    "internal error: opcode %d type class %d cannot execute", in->op, in->tk);
      }
    for (int k = 0; k < in->ndst; k++) W[in->d[k]] |= gm;
    pc = next;
    if (pc >= w->wait_min) {
      set_lpc(w, mask, pc);
      w->mask = 0;
      resched(w);
      SYNC_IN();
    }
    continue;
  after_sched:
    for (int k = 0; k < in->ndst; k++) W[in->d[k]] |= gm;
  }
  SYNC_OUT();
  return CUDA_SUCCESS;
#undef SYNC_OUT
#undef SYNC_IN
}

/* ---------- blocks ---------- */

static CUresult run_block(ctx *c) {
  const emu_func *f = c->f;
  const unsigned *bd = c->L->block;
  memset(c->shared, 0, c->shared_size);
  if (c->racecheck) emu_race_reset(&c->race, c->shared_size);
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    warp *w = &c->warps[wi];
    w->tid0 = wi * 32;
    uint32_t n = c->nthreads - w->tid0 < 32 ? c->nthreads - w->tid0 : 32;
    w->live = n == 32 ? ALL : (1u << n) - 1;
    w->waiting = w->parked = 0;
    w->forced = 0;
    memset(w->W, 0, f->nregs * sizeof *w->W);
    for (int k = 0; k < 32; k++) w->lpc[k] = 0;
    uint64_t *S = w->R + (size_t)f->special_base * 32;
    for (uint32_t l = 0; l < n; l++) {
      uint32_t t = w->tid0 + l;
      S[EMU_SP_TID_X * 32 + l] = t % bd[0];
      S[EMU_SP_TID_Y * 32 + l] = (t / bd[0]) % bd[1];
      S[EMU_SP_TID_Z * 32 + l] = t / (bd[0] * bd[1]);
      S[EMU_SP_CTAID_X * 32 + l] = c->ctaid[0];
      S[EMU_SP_CTAID_Y * 32 + l] = c->ctaid[1];
      S[EMU_SP_CTAID_Z * 32 + l] = c->ctaid[2];
    }
    w->mask = w->live;
    w->pc = 0;
    w->wait_min = UINT32_MAX;
  }
  for (;;) {
    for (uint32_t wi = 0; wi < c->nwarps; wi++) {
      warp *w = &c->warps[wi];
      if (w->mask) {
        CUresult rc = run_warp(c, w);
        if (rc) return rc;
      }
    }
    uint32_t live = 0, waiting_warp = UINT32_MAX;
    int wl = -1;
    for (uint32_t wi = 0; wi < c->nwarps; wi++) {
      live += (uint32_t)__builtin_popcount(c->warps[wi].live);
      if (c->warps[wi].waiting && waiting_warp == UINT32_MAX) {
        waiting_warp = wi;
        wl = __builtin_ctz(c->warps[wi].waiting);
      }
    }
    if (live == 0) return CUDA_SUCCESS;
    /* every live thread now waits at a barrier */
    warp *w0 = &c->warps[waiting_warp];
    uint32_t bpc = w0->barpc[wl];
    const emu_insn *bin = &c->code[bpc];
    if (live != c->nthreads) {
      for (uint32_t wi = 0; wi < c->nwarps; wi++) {
        warp *w = &c->warps[wi];
        uint32_t n = c->nthreads - w->tid0 < 32 ? c->nthreads - w->tid0 : 32;
        uint32_t all = n == 32 ? ALL : (1u << n) - 1;
        uint32_t ex = all & ~w->live;
        if (ex)
          return fail(c, w, __builtin_ctz(ex), bin, CUDA_ERROR_LAUNCH_FAILED,
                      "barrier divergence: this thread exited without reaching the bar.sync "
                      "at line %d, at which %u threads of the block wait",
                      bin->line, live);
      }
    }
    for (uint32_t wi = 0; wi < c->nwarps; wi++) {
      warp *w = &c->warps[wi];
      for (uint32_t mm = w->waiting; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (w->barpc[l] != bpc)
          return fail(c, w, l, &c->code[w->barpc[l]], CUDA_ERROR_LAUNCH_FAILED,
                      "barrier divergence: this thread waits at the barrier at line %d while "
                      "others wait at the barrier at line %d",
                      c->code[w->barpc[l]].line, bin->line);
      }
    }
    for (uint32_t wi = 0; wi < c->nwarps; wi++) {
      warp *w = &c->warps[wi];
      w->waiting = 0;
      resched(w);
    }
    c->st->barriers++;
    if (c->racecheck) emu_race_barrier(&c->race);
  }
}

CUresult emu_execute(emu_launch *L) {
  const emu_func *f = L->fn;
  ctx cc, *c = &cc;
  memset(c, 0, sizeof *c);
  c->L = L;
  c->f = f;
  c->code = f->code;
  c->st = L->st;
  c->params = L->params;
  c->param_size = f->param_size;
  c->nthreads = L->block[0] * L->block[1] * L->block[2];
  c->nwarps = (c->nthreads + 31) / 32;
  c->shared_size = f->dyn_shared_off + L->dyn_shared;
  if (L->dyn_shared == 0) c->shared_size = f->shared_static;
  c->local_size = f->local_size;
  const char *rcenv = getenv("JIT_EMU_RACECHECK");
  c->racecheck = !(rcenv && rcenv[0] == '0');
  c->shared = malloc(c->shared_size ? c->shared_size : 1);
  c->local = calloc((size_t)c->nthreads * (c->local_size ? c->local_size : 1), 1);
  c->warps = calloc(c->nwarps, sizeof *c->warps);
  size_t regs = (size_t)f->nslots * 32;
  uint64_t *Rall = malloc(c->nwarps * regs * sizeof *Rall);
  uint32_t *Wall = malloc(c->nwarps * (size_t)f->nslots * sizeof *Wall);
  CUresult rc = CUDA_SUCCESS;
  if (!c->shared || !c->local || !c->warps || !Rall || !Wall) {
    snprintf(L->msg, sizeof L->msg, "kernel '%s': out of host memory for the launch", f->name);
    rc = CUDA_ERROR_OUT_OF_MEMORY;
    goto done;
  }
  memset(Rall, 0, c->nwarps * regs * sizeof *Rall);
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    warp *w = &c->warps[wi];
    w->R = Rall + wi * regs;
    w->W = Wall + (size_t)wi * f->nslots;
    for (uint32_t k = f->nregs; k < f->nslots; k++) w->W[k] = ALL;
    for (uint32_t k = 0; k < f->nconsts; k++)
      for (int l = 0; l < 32; l++) w->R[(size_t)(f->const_base + k) * 32 + l] = f->consts[k];
    uint64_t *S = w->R + (size_t)f->special_base * 32;
    for (int l = 0; l < 32; l++) {
      S[EMU_SP_NTID_X * 32 + l] = L->block[0];
      S[EMU_SP_NTID_Y * 32 + l] = L->block[1];
      S[EMU_SP_NTID_Z * 32 + l] = L->block[2];
      S[EMU_SP_NCTAID_X * 32 + l] = L->grid[0];
      S[EMU_SP_NCTAID_Y * 32 + l] = L->grid[1];
      S[EMU_SP_NCTAID_Z * 32 + l] = L->grid[2];
      S[EMU_SP_LANEID * 32 + l] = (uint64_t)l;
      S[EMU_SP_WARPID * 32 + l] = wi;
      S[EMU_SP_NWARPID * 32 + l] = 64;
      S[EMU_SP_LANEMASK_EQ * 32 + l] = 1u << l;
      S[EMU_SP_LANEMASK_LT * 32 + l] = (1u << l) - 1;
      S[EMU_SP_LANEMASK_LE * 32 + l] = (uint32_t)((2ull << l) - 1);
      S[EMU_SP_LANEMASK_GT * 32 + l] = (uint32_t) ~((2ull << l) - 1);
      S[EMU_SP_LANEMASK_GE * 32 + l] = (uint32_t) ~((1u << l) - 1);
      S[EMU_SP_SMID * 32 + l] = 0;
      S[EMU_SP_NSMID * 32 + l] = 132;
      S[EMU_SP_GRIDID * 32 + l] = 1;
      S[EMU_SP_DSMEM * 32 + l] = L->dyn_shared;
      S[EMU_SP_TSMEM * 32 + l] = c->shared_size;
    }
  }
  for (uint32_t z = 0; z < L->grid[2] && !rc; z++)
    for (uint32_t y = 0; y < L->grid[1] && !rc; y++)
      for (uint32_t x = 0; x < L->grid[0] && !rc; x++) {
        c->ctaid[0] = x, c->ctaid[1] = y, c->ctaid[2] = z;
        rc = run_block(c);
      }
done:
  emu_race_free(&c->race);
  free(Rall);
  free(Wall);
  free(c->shared);
  free(c->local);
  free(c->warps);
  return rc;
}
