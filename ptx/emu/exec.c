/* The interpreter: inside a block, warps of 32 threads execute in lockstep over pre-decoded
 * instructions; the blocks of a launch run one after another.
 *
 * Registers: one 64-bit slot per register and lane (R[slot * 32 + lane]), holding the value
 * zero-extended from its width; a 32-bit mask per register tells which lanes have written it
 * (reads of unwritten registers are errors). Divergence: every lane has its own pc; the warp
 * runs the group of ready lanes with the smallest pc (lanes at the same pc reconverge). Lanes
 * wait at bar.sync until every thread of the block arrives; warp-synchronous instructions
 * (shfl.sync, vote.sync) wait until all lanes of their member mask arrive.
 *
 * The operations of the table (ops.h) are instantiated here for every type class they exist
 * for: one switch case per (operation, type), whose lanes compute the table's expression on
 * values of that type. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <tgmath.h>
#include "exec.h"

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

/* ---------- operations instantiated per type ---------- */

#define C(op, tk) ((op)*EMU_TK_N + (tk))

/* Integer type classes: TK, U (unsigned, of the width), V (arithmetic), WU and WV (twice as
 * wide), BITS, SG (signed), MASK (all ones of the width). Predicates are 0 or 1. */
#define T_U16 U16, uint16_t, uint16_t, uint32_t, uint32_t, 16, 0, 0xffffu
#define T_S16 S16, uint16_t, int16_t, uint32_t, int32_t, 16, 1, 0xffffu
#define T_U32 U32, uint32_t, uint32_t, uint64_t, uint64_t, 32, 0, 0xffffffffu
#define T_S32 S32, uint32_t, int32_t, uint64_t, int64_t, 32, 1, 0xffffffffu
#define T_U64 U64, uint64_t, uint64_t, unsigned __int128, unsigned __int128, 64, 0, ~0ull
#define T_S64 S64, uint64_t, int64_t, unsigned __int128, __int128, 64, 1, ~0ull
#define T_PRED PRED, uint64_t, uint64_t, uint64_t, uint64_t, 1, 0, 1u

/* The types of a class inside a case, for the expressions of the table. */
#define INT_TYPES(U_, V_, WU_, WV_, BITS_, SG_, MASK_)                                             \
  typedef U_ U __attribute__((unused));                                                            \
  typedef V_ V __attribute__((unused));                                                            \
  typedef WU_ WU __attribute__((unused));                                                          \
  typedef WV_ WV __attribute__((unused));                                                          \
  enum { BITS = BITS_, SG = SG_ };                                                                 \
  const U MASK __attribute__((unused)) = (U)(MASK_)

#define INT_CASE(ID, expr, type) INT_CASE_(ID, expr, type)
#define INT_CASE_(ID, expr, TK, U_, V_, WU_, WV_, BITS_, SG_, MASK_)                               \
  case C(EMU_OP_##ID, EMU_TK_##TK): {                                                              \
    INT_TYPES(U_, V_, WU_, WV_, BITS_, SG_, MASK_);                                                \
    LANES({                                                                                        \
      U a = (U)A[l], b __attribute__((unused)) = (U)B[l], c __attribute__((unused)) = (U)Cc[l];    \
      uint32_t bn __attribute__((unused)) = (uint32_t)B[l];                                        \
      uint32_t cn __attribute__((unused)) = (uint32_t)Cc[l];                                       \
      uint32_t en __attribute__((unused)) = (uint32_t)E[l];                                        \
      WU cw __attribute__((unused)) = (WU)Cc[l];                                                   \
      D[l] = (uint64_t)(expr);                                                                     \
    });                                                                                            \
    break;                                                                                         \
  }
#define INT_NONE(ID, e)
#define INT_INT(ID, e)                                                                             \
  INT_CASE(ID, e, T_U16)                                                                           \
  INT_CASE(ID, e, T_S16)                                                                           \
  INT_CASE(ID, e, T_U32) INT_CASE(ID, e, T_S32) INT_CASE(ID, e, T_U64) INT_CASE(ID, e, T_S64)
#define INT_NARROW(ID, e)                                                                          \
  INT_CASE(ID, e, T_U16) INT_CASE(ID, e, T_S16) INT_CASE(ID, e, T_U32) INT_CASE(ID, e, T_S32)
#define INT_SIGNED(ID, e) INT_CASE(ID, e, T_S16) INT_CASE(ID, e, T_S32) INT_CASE(ID, e, T_S64)
#define INT_S32(ID, e) INT_CASE(ID, e, T_S32)
#define INT_BIT(ID, e) INT_CASE(ID, e, T_U16) INT_CASE(ID, e, T_U32) INT_CASE(ID, e, T_U64)
#define INT_LOGIC(ID, e) INT_BIT(ID, e) INT_CASE(ID, e, T_PRED)
#define INT_BIT32UP(ID, e) INT_CASE(ID, e, T_U32) INT_CASE(ID, e, T_U64)
#define INT_INT32UP(ID, e)                                                                         \
  INT_CASE(ID, e, T_U32) INT_CASE(ID, e, T_S32) INT_CASE(ID, e, T_U64) INT_CASE(ID, e, T_S64)
#define INT_B32(ID, e) INT_CASE(ID, e, T_U32)
#define INT_ROW(ID, name, alias, family, class, it, ie, ft, fe) INT_##it(ID, ie)

/* Float types: TK, T, register bits -> T, T -> register bits. */
#define T_F32 F32, float, emu_f32, emu_bits32
#define T_F64 F64, double, emu_f64, emu_bits64

/* FAST: .rn without .ftz or .sat computed here, everything else by the general path. */
#define FLT_CASE(ID, expr, fast, type) FLT_CASE_(ID, expr, fast, type)
#define FLT_CASE_(ID, expr, fast, TK, T_, FROM, TO)                                                \
  case C(EMU_OP_##ID, EMU_TK_##TK): {                                                              \
    typedef T_ T;                                                                                  \
    if (fast && in->rnd == EMU_RND_RN && !(in->flags & (EMU_F_FTZ | EMU_F_SAT)))                   \
      LANES({                                                                                      \
        T a = FROM(A[l]), b __attribute__((unused)) = FROM(B[l]);                                  \
        T c __attribute__((unused)) = FROM(Cc[l]);                                                 \
        D[l] = TO(expr);                                                                           \
      });                                                                                          \
    else                                                                                           \
      emu_float_##TK(in, gm, D, A, B, Cc);                                                         \
    break;                                                                                         \
  }
#define FLT_NONE(ID, e)
#define FLT_FLT_FAST(ID, e) FLT_CASE(ID, e, 1, T_F32) FLT_CASE(ID, e, 1, T_F64)
#define FLT_FLT(ID, e) FLT_CASE(ID, e, 0, T_F32) FLT_CASE(ID, e, 0, T_F64)
#define FLT_F32(ID, e) FLT_CASE(ID, e, 0, T_F32)
#define FLT_ROW(ID, name, alias, family, class, it, ie, ft, fe) FLT_##ft(ID, fe)

/* setp: one lane loop per comparison and type, on the operands as X (U or T); then the
 * predicate combination. */
#define SETP_CMP(ID, e)                                                                            \
  case EMU_CMP_##ID:                                                                               \
    LANES({                                                                                        \
      X a = OPERAND(A[l]), b = OPERAND(B[l]);                                                      \
      D[l] = (uint64_t)(e);                                                                        \
    });                                                                                            \
    break;
/* register bits -> X; .ftz (only f32 has setp.ftz) flushes subnormals */
#define OPERAND(v)                                                                                 \
  __builtin_choose_expr(                                                                           \
      __builtin_types_compatible_p(X, float), ftz ? emu_ftz32(emu_f32(v)) : emu_f32(v),            \
      __builtin_choose_expr(__builtin_types_compatible_p(X, double), emu_f64(v), (X)(v)))
#define SETP_INT_INT SETP_CMP
#define SETP_INT_NONE(ID, e)
#define SETP_INT_ROW(ID, name, ik, ie, fk, fe) SETP_INT_##ik(ID, ie)
#define SETP_FLT_FLT SETP_CMP
#define SETP_FLT_NONE(ID, e)
#define SETP_FLT_ROW(ID, name, ik, ie, fk, fe) SETP_FLT_##fk(ID, fe)
#define SETP_INT(type) SETP_INT_(type)
#define SETP_INT_(TK, U_, V_, WU_, WV_, BITS_, SG_, MASK_)                                         \
  case C(EMU_OP_SETP, EMU_TK_##TK): {                                                              \
    INT_TYPES(U_, V_, WU_, WV_, BITS_, SG_, MASK_);                                                \
    typedef U X;                                                                                   \
    const int ftz = 0;                                                                             \
    switch (in->cmp) { EMU_CMPS(SETP_INT_ROW) }                                                    \
    setp_combine(in, gm, D, R, Cc);                                                                \
    break;                                                                                         \
  }
#define SETP_FLT(type) SETP_FLT_(type)
#define SETP_FLT_(TK, T_, FROM_, TO_)                                                              \
  case C(EMU_OP_SETP, EMU_TK_##TK): {                                                              \
    typedef T_ X;                                                                                  \
    int ftz = in->flags & EMU_F_FTZ;                                                               \
    switch (in->cmp) { EMU_CMPS(SETP_FLT_ROW) }                                                    \
    setp_combine(in, gm, D, R, Cc);                                                                \
    break;                                                                                         \
  }

/* testp: the class of each lane's value. */
#define TESTP(type) TESTP_(type)
#define TESTP_(TK, T_, FROM, TO_)                                                                  \
  case C(EMU_OP_TESTP, EMU_TK_##TK):                                                               \
    LANES(D[l] = testp(in->mode, fpclassify(FROM(A[l]))));                                         \
    break;

static int testp(int mode, int cl) {
  switch (mode) {
  case EMU_TESTP_FINITE:
    return cl != FP_INFINITE && cl != FP_NAN;
  case EMU_TESTP_INFINITE:
    return cl == FP_INFINITE;
  case EMU_TESTP_NUMBER:
    return cl != FP_NAN;
  case EMU_TESTP_NAN:
    return cl == FP_NAN;
  case EMU_TESTP_NORMAL:
    return cl == FP_NORMAL;
  default:
    return cl == FP_SUBNORMAL;
  }
}

/* setp's boolean combination with a third predicate (and, or, xor), and its second
 * destination, the complement (p|q). */
static void setp_combine(const emu_insn *in, uint32_t gm, uint64_t *D, uint64_t *R,
                         const uint64_t *Cc) {
  int bop = in->bop, cneg = (in->sneg >> 2) & 1, hasq = in->ndst == 2;
  if (!bop && !hasq) return;
  uint64_t *Q = R + (size_t)in->d[1] * 32;
  LANES({
    int r = (int)D[l], q = !r;
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
}

/* Case labels of an operation for every type class. */
#define ANY_TK(op)                                                                                 \
  case C(op, EMU_TK_U16):                                                                          \
  case C(op, EMU_TK_S16):                                                                          \
  case C(op, EMU_TK_U32):                                                                          \
  case C(op, EMU_TK_S32):                                                                          \
  case C(op, EMU_TK_U64):                                                                          \
  case C(op, EMU_TK_S64):                                                                          \
  case C(op, EMU_TK_F32):                                                                          \
  case C(op, EMU_TK_F64):                                                                          \
  case C(op, EMU_TK_PRED):                                                                         \
  case C(op, EMU_TK_OTHER)

/* ---------- the warp loop ---------- */

static CUresult unwritten(ctx *c, warp *w, const emu_insn *in, uint32_t slot, uint32_t bad) {
  char name[64];
  emu_slot_name(c->f, slot, name, sizeof name);
  return emu_fail(c, w, __builtin_ctz(bad), in, CUDA_ERROR_LAUNCH_FAILED,
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
      if (st->by_insn) st->by_insn[pc] += (uint64_t)n;
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
    const uint64_t *E = R + (size_t)in->s[3] * 32;
    uint32_t next = pc + 1;
    if (gm) switch (in->code) {
        EMU_OPS(INT_ROW)
        EMU_OPS(FLT_ROW)
        SETP_INT(T_U16)
        SETP_INT(T_S16)
        SETP_INT(T_U32)
        SETP_INT(T_S32)
        SETP_INT(T_U64)
        SETP_INT(T_S64)
        SETP_FLT(T_F32)
        SETP_FLT(T_F64)
        TESTP(T_F32)
        TESTP(T_F64)
        ANY_TK(EMU_OP_SELP) : LANES(D[l] = (Cc[l] & 1) ? A[l] : B[l]);
        break;
        ANY_TK(EMU_OP_MOV) : LANES(D[l] = A[l]);
        break;
      case C(EMU_OP_PACK, EMU_TK_U32):
      case C(EMU_OP_PACK, EMU_TK_U64): {
        int es = emu_type_size(in->type2), nv = in->vec;
        LANES({
          uint64_t v = 0;
          for (int k = nv - 1; k >= 0; k--)
            v = v << (8 * es) | emu_zext(R[(size_t)in->s[k] * 32 + l], es);
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
            R[(size_t)in->d[k] * 32 + l] = emu_zext(tmp[l] >> (8 * es * k), es);
        });
        break;
      }
        ANY_TK(EMU_OP_CVT) : {
          int rsz = in->rsz, dt = in->type, at = in->type2;
          if (emu_type_kind(dt) != EMU_K_F && emu_type_kind(at) != EMU_K_F &&
              !(in->flags & EMU_F_SAT))
            LANES(D[l] = emu_zext(emu_cvt_int(A[l], at, dt), rsz));
          else
            LANES(D[l] = emu_zext(emu_cvt(in, A[l]), rsz));
          break;
        }
      case C(EMU_OP_CVTA, EMU_TK_U32):
      case C(EMU_OP_CVTA, EMU_TK_U64):
      case C(EMU_OP_CVTA_TO, EMU_TK_U32):
      case C(EMU_OP_CVTA_TO, EMU_TK_U64): {
        uint64_t base = in->space == EMU_SP_SHARED  ? EMU_SHARED_WINDOW
                        : in->space == EMU_SP_LOCAL ? EMU_LOCAL_WINDOW
                                                    : 0;
        int sz = emu_type_size(in->type), to = in->op == EMU_OP_CVTA_TO;
        if (!base)
          LANES(D[l] = emu_zext(A[l], sz));
        else if (to)
          LANES(D[l] = emu_zext(A[l] - base, sz));
        else
          LANES(D[l] = emu_zext(emu_zext(A[l], 4) + base, sz));
        break;
      }
        /* ---- memory ---- */
        ANY_TK(EMU_OP_LD) : ANY_TK(EMU_OP_ST) : rc = emu_mem_op(c, w, in, gm);
        if (rc) {
          SYNC_OUT();
          return rc;
        }
        break;
        ANY_TK(EMU_OP_ATOM) : rc = emu_atom_op(c, w, in, gm);
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
            return emu_fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED, "barrier id %u out of range",
                            (uint32_t)A[l]);
          }
          if (in->nsrc == 2 && (uint32_t)B[l] != c->nthreads) {
            SYNC_OUT();
            return emu_fail(
                c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
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
            return emu_fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
                            "lanes of one warp-synchronous instruction use different member masks "
                            "(0x%08x and 0x%08x)",
                            member, (uint32_t)M[l]);
          }
        }
        if (!(member & (1u << __builtin_ctz(gm)))) {
          SYNC_OUT();
          return emu_fail(c, w, __builtin_ctz(gm), in, CUDA_ERROR_LAUNCH_FAILED,
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
          return emu_fail(c, w, __builtin_ctz(missing), in, CUDA_ERROR_LAUNCH_FAILED,
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
              return emu_fail(c, w, l, in, CUDA_ERROR_LAUNCH_FAILED,
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
        return emu_fail(c, w, __builtin_ctz(gm), in, CUDA_ERROR_LAUNCH_FAILED,
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

static void block_free(block *b) {
  if (!b) return;
  free(b->W);
  free(b->shared);
  free(b->local);
  free(b->warps);
  free(b);
}

/* The state of one resident block, its registers at R, with what no block changes: constants,
 * the launch's special registers, thread indices. NULL when out of host memory. */
static block *block_new(ctx *c, uint64_t *R) {
  const emu_func *f = c->f;
  const emu_launch *L = c->L;
  const unsigned *bd = L->block;
  size_t regs = (size_t)f->nslots * 32;
  block *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->R = R;
  b->shared = malloc(c->shared_size ? c->shared_size : 1);
  b->local = calloc((size_t)c->nthreads * (c->local_size ? c->local_size : 1), 1);
  b->warps = calloc(c->nwarps, sizeof *b->warps);
  b->W = malloc(c->nwarps * (size_t)f->nslots * sizeof *b->W);
  if (!b->shared || !b->local || !b->warps || !b->W) {
    block_free(b);
    return NULL;
  }
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    warp *w = &b->warps[wi];
    w->tid0 = wi * 32;
    w->R = b->R + wi * regs;
    w->W = b->W + (size_t)wi * f->nslots;
    for (uint32_t k = f->nregs; k < f->nslots; k++) w->W[k] = ALL;
    for (uint32_t k = 0; k < f->nconsts; k++)
      for (int l = 0; l < 32; l++) w->R[(size_t)(f->const_base + k) * 32 + l] = f->consts[k];
    uint64_t *S = w->R + (size_t)f->special_base * 32;
    for (uint32_t l = 0; l < 32; l++) {
      uint32_t t = w->tid0 + l;
      S[EMU_SP_TID_X * 32 + l] = t % bd[0];
      S[EMU_SP_TID_Y * 32 + l] = (t / bd[0]) % bd[1];
      S[EMU_SP_TID_Z * 32 + l] = t / (bd[0] * bd[1]);
      S[EMU_SP_NTID_X * 32 + l] = bd[0];
      S[EMU_SP_NTID_Y * 32 + l] = bd[1];
      S[EMU_SP_NTID_Z * 32 + l] = bd[2];
      S[EMU_SP_NCTAID_X * 32 + l] = L->grid[0];
      S[EMU_SP_NCTAID_Y * 32 + l] = L->grid[1];
      S[EMU_SP_NCTAID_Z * 32 + l] = L->grid[2];
      S[EMU_SP_LANEID * 32 + l] = l;
      S[EMU_SP_WARPID * 32 + l] = wi;
      S[EMU_SP_NWARPID * 32 + l] = 64;
      S[EMU_SP_LANEMASK_EQ * 32 + l] = 1u << l;
      S[EMU_SP_LANEMASK_LT * 32 + l] = (1u << l) - 1;
      S[EMU_SP_LANEMASK_LE * 32 + l] = (uint32_t)((2ull << l) - 1);
      S[EMU_SP_LANEMASK_GT * 32 + l] = (uint32_t) ~((2ull << l) - 1);
      S[EMU_SP_LANEMASK_GE * 32 + l] = (uint32_t) ~((1u << l) - 1);
      S[EMU_SP_SMID * 32 + l] = 0;
      S[EMU_SP_NSMID * 32 + l] = EMU_SM_COUNT;
      S[EMU_SP_GRIDID * 32 + l] = 1;
      S[EMU_SP_DSMEM * 32 + l] = L->dyn_shared;
      S[EMU_SP_TSMEM * 32 + l] = c->shared_size;
    }
  }
  return b;
}

/* Block number `linear` (x fastest) starts: zeroed shared memory, no register written, every
 * thread at pc 0. */
static void block_start(ctx *c, block *b, uint64_t linear) {
  const emu_func *f = c->f;
  const unsigned *g = c->L->grid;
  b->ctaid[0] = (uint32_t)(linear % g[0]);
  b->ctaid[1] = (uint32_t)(linear / g[0] % g[1]);
  b->ctaid[2] = (uint32_t)(linear / g[0] / g[1]);
  b->instructions = b->barriers = 0;
  memset(b->shared, 0, c->shared_size);
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    warp *w = &b->warps[wi];
    uint32_t n = c->nthreads - w->tid0 < 32 ? c->nthreads - w->tid0 : 32;
    w->live = n == 32 ? ALL : (1u << n) - 1;
    w->waiting = w->parked = 0;
    w->forced = 0;
    memset(w->W, 0, f->nregs * sizeof *w->W);
    memset(w->lpc, 0, sizeof w->lpc);
    uint64_t *S = w->R + (size_t)f->special_base * 32;
    for (uint32_t l = 0; l < 32; l++) {
      S[EMU_SP_CTAID_X * 32 + l] = b->ctaid[0];
      S[EMU_SP_CTAID_Y * 32 + l] = b->ctaid[1];
      S[EMU_SP_CTAID_Z * 32 + l] = b->ctaid[2];
    }
    w->mask = w->live;
    w->pc = 0;
    w->wait_min = UINT32_MAX;
  }
}

/* Every live thread waits at a barrier: the same one, reached by every thread of the block. */
static CUresult barrier_check(ctx *c, block *b, uint32_t live) {
  uint32_t wi = 0;
  while (!b->warps[wi].waiting) wi++;
  uint32_t bpc = b->warps[wi].barpc[__builtin_ctz(b->warps[wi].waiting)];
  const emu_insn *bin = &c->code[bpc];
  for (wi = 0; wi < c->nwarps; wi++) {
    warp *w = &b->warps[wi];
    uint32_t n = c->nthreads - w->tid0 < 32 ? c->nthreads - w->tid0 : 32;
    uint32_t ex = (n == 32 ? ALL : (1u << n) - 1) & ~w->live;
    if (ex && live != c->nthreads)
      return emu_fail(c, w, __builtin_ctz(ex), bin, CUDA_ERROR_LAUNCH_FAILED,
                      "barrier divergence: this thread exited without reaching the bar.sync "
                      "at line %d, at which %u threads of the block wait",
                      bin->line, live);
  }
  for (wi = 0; wi < c->nwarps; wi++) {
    warp *w = &b->warps[wi];
    for (uint32_t mm = w->waiting; mm; mm &= mm - 1) {
      int l = __builtin_ctz(mm);
      if (w->barpc[l] != bpc)
        return emu_fail(c, w, l, &c->code[w->barpc[l]], CUDA_ERROR_LAUNCH_FAILED,
                        "barrier divergence: this thread waits at the barrier at line %d while "
                        "others wait at the barrier at line %d",
                        c->code[w->barpc[l]].line, bin->line);
    }
  }
  return CUDA_SUCCESS;
}

/* One barrier interval of block b: its warps run until every thread has exited (*done) or waits
 * at a barrier, which then releases them. The race detector sees one interval at a time. */
static CUresult block_step(ctx *c, block *b, int *done) {
  c->b = b;
  if (c->racecheck) emu_race_barrier(&c->race);
  uint64_t before = c->st->instructions;
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    warp *w = &b->warps[wi];
    if (w->mask) {
      CUresult rc = run_warp(c, w);
      if (rc) return rc;
    }
  }
  b->instructions += c->st->instructions - before;
  uint32_t live = 0;
  for (uint32_t wi = 0; wi < c->nwarps; wi++)
    live += (uint32_t)__builtin_popcount(b->warps[wi].live);
  *done = live == 0;
  if (*done) {
    emu_stats_block(c->st, b->instructions, b->barriers);
    return CUDA_SUCCESS;
  }
  CUresult rc = barrier_check(c, b, live);
  if (rc) return rc;
  for (uint32_t wi = 0; wi < c->nwarps; wi++) {
    b->warps[wi].waiting = 0;
    resched(&b->warps[wi]);
  }
  c->st->barriers++;
  b->barriers++;
  return CUDA_SUCCESS;
}

/* ---------- waves ---------- */

/* Blocks resident on one multiprocessor at a time: as many as its threads (2048, in whole
 * warps), its shared memory (228 KB, 1 KB of which the system reserves per block) and its
 * block limit (32) allow. Registers are not counted: PTX names virtual registers, and how many
 * ptxas would allocate is not known here. */
static uint32_t blocks_per_sm(const ctx *c) {
  uint32_t n = EMU_SM_THREADS / (c->nwarps * 32),
           by_shared = EMU_SM_SHARED / (c->shared_size + EMU_SHARED_RESERVED);
  if (n > EMU_SM_BLOCKS) n = EMU_SM_BLOCKS;
  if (n > by_shared) n = by_shared;
  return n ? n : 1;
}

/* The host memory resident blocks may take: a wave of blocks that wait at barriers holds them
 * all; beyond it, fewer blocks advance together (wave_blocks says how many). */
#define WAVE_MEMORY (1ull << 30)
#define HUGE (2u << 20)

/* With the L2 model, the blocks of a wave (every multiprocessor's resident blocks) advance
 * together: round-robin, one barrier interval each, so that the model sees their accesses
 * interleaved as they would be on the GPU. A finished block's place goes to the next block of
 * the grid, in order (x fastest); a kernel without barriers so runs block after block. States
 * are reused: only blocks waiting at a barrier hold one. Without the model a wave is one block:
 * the same results (blocks cannot wait for each other), with one state and a warm cache. */
static CUresult run_grid(ctx *c) {
  const unsigned *g = c->L->grid;
  uint64_t nblocks = (uint64_t)g[0] * g[1] * g[2], next = 0, running = 0;
  uint64_t wave = (uint64_t)EMU_SM_COUNT * blocks_per_sm(c);
  uint64_t state = (uint64_t)c->f->nslots * 8 * 32 * c->nwarps + c->shared_size +
                   (uint64_t)c->local_size * c->nthreads + 1;
  if (!c->st->l2) wave = 1;
  if (wave > nblocks) wave = nblocks;
  if (wave > WAVE_MEMORY / state) wave = WAVE_MEMORY / state ? WAVE_MEMORY / state : 1;
  c->st->wave_blocks = (uint32_t)wave;
  block **place = calloc(wave, sizeof *place), **idle = calloc(wave, sizeof *idle);
  size_t nidle = 0, nstates = 0, rbytes = (size_t)c->f->nslots * 8 * 32 * c->nwarps;
  /* every state's registers in one region: huge pages, where the kernel gives them, spare
   * the page faults of touching hundreds of megabytes */
  size_t arena_bytes = (wave * rbytes + HUGE - 1) / HUGE * HUGE;
  void *arena = NULL;
  if (posix_memalign(&arena, HUGE, arena_bytes)) arena = NULL;
  if (arena) madvise(arena, arena_bytes, MADV_HUGEPAGE);
  CUresult rc = place && idle && arena ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  while (!rc && (next < nblocks || running)) {
    for (uint64_t p = 0; p < wave && !rc; p++) {
      if (!place[p]) {
        if (next == nblocks) continue;
        place[p] =
            nidle ? idle[--nidle] : block_new(c, (uint64_t *)arena + nstates++ * (rbytes / 8));
        if (!place[p]) {
          rc = CUDA_ERROR_OUT_OF_MEMORY;
          break;
        }
        block_start(c, place[p], next++);
        running++;
      }
      int done = 0;
      rc = block_step(c, place[p], &done);
      if (done) {
        idle[nidle++] = place[p];
        place[p] = NULL;
        running--;
      }
    }
  }
  for (uint64_t p = 0; place && p < wave; p++) block_free(place[p]);
  while (nidle) block_free(idle[--nidle]);
  free(place);
  free(idle);
  free(arena);
  return rc;
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
  c->shared_size = L->dyn_shared ? f->dyn_shared_off + L->dyn_shared : f->shared_static;
  c->st->shared_bytes = c->shared_size;
  c->st->dynamic_shared_bytes = L->dyn_shared;
  c->local_size = f->local_size;
  const char *rcenv = getenv("JIT_EMU_RACECHECK");
  c->racecheck = !(rcenv && rcenv[0] == '0');
  if (c->racecheck) emu_race_reset(&c->race, c->shared_size);
  CUresult rc = run_grid(c);
  if (rc == CUDA_ERROR_OUT_OF_MEMORY)
    snprintf(L->msg, sizeof L->msg, "kernel '%s': out of host memory for the launch", f->name);
  emu_race_free(&c->race);
  return rc;
}
