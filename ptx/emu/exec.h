/* The interpreter's state and the helpers its files share: exec.c (warps, blocks, waves),
 * exec_mem.c (memory and atomics), exec_float.c (float arithmetic, conversions), exec_fail.c
 * (messages). */
#ifndef EMU_EXEC_H
#define EMU_EXEC_H

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

/* One resident block: its shared and local memory, warps and registers. */
typedef struct block {
  uint32_t ctaid[3];
  uint8_t *shared, *local;
  warp *warps;
  uint64_t *R;
  uint32_t *W;
  uint64_t instructions, barriers; /* so far: its threads' instructions and its barriers */
} block;

typedef struct ctx {
  emu_launch *L;
  const emu_func *f;
  const emu_insn *code;
  emu_stats *st;
  uint32_t shared_size, local_size;
  uint32_t nthreads, nwarps;
  int racecheck;
  emu_race race; /* of the barrier interval running now */
  const uint8_t *params;
  uint32_t param_size;
  block *b; /* the block running now */
} ctx;

/* Runs the lanes of mask gm (in scope) with `l` bound to the lane; the full warp as a plain
 * loop the compiler can vectorize. */
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

/* Register bits <-> float and double. */
#define EMU_BITCAST(name, From, Via, To)                                                           \
  static inline To name(From v) {                                                                  \
    Via x = (Via)v;                                                                                \
    To r;                                                                                          \
    memcpy(&r, &x, sizeof r);                                                                      \
    return r;                                                                                      \
  }
EMU_BITCAST(emu_f32, uint64_t, uint32_t, float)
EMU_BITCAST(emu_bits32, float, float, uint32_t)
EMU_BITCAST(emu_f64, uint64_t, uint64_t, double)
EMU_BITCAST(emu_bits64, double, double, uint64_t)
/* .ftz: a subnormal float becomes a zero of its sign. */
static inline float emu_ftz32(float f) {
  uint32_t u = (uint32_t)emu_bits32(f);
  if ((u & 0x7f800000u) == 0) u &= 0x80000000u;
  return emu_f32(u);
}
static inline int64_t emu_sext(uint64_t v, int bytes) {
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
static inline uint64_t emu_zext(uint64_t v, int bytes) {
  return bytes >= 8 ? v : v & ((1ull << (8 * bytes)) - 1);
}

/* Fails the launch: "kernel 'k', PTX line n, block (..), thread (..): what" into the launch's
 * message (exec_fail.c); returns rc. w NULL: no thread to name. */
CUresult emu_fail(ctx *c, const warp *w, int lane, const emu_insn *in, CUresult rc, const char *fmt,
                  ...) __attribute__((format(printf, 6, 7)));
void emu_thread_coords(const ctx *c, uint32_t t, unsigned v[3]);

/* ld, st (exec_mem.c): every lane of gm, with the counters; atom and red likewise. */
CUresult emu_mem_op(ctx *c, warp *w, const emu_insn *in, uint32_t gm);
CUresult emu_atom_op(ctx *c, warp *w, const emu_insn *in, uint32_t gm);

/* Float arithmetic in its general form, with the rounding mode, .ftz and .sat, for every lane of
 * gm (exec_float.c). */
void emu_float_F32(const emu_insn *in, uint32_t gm, uint64_t *D, const uint64_t *A,
                   const uint64_t *B, const uint64_t *C);
void emu_float_F64(const emu_insn *in, uint32_t gm, uint64_t *D, const uint64_t *A,
                   const uint64_t *B, const uint64_t *C);
/* One lane of cvt: the destination value, extended to 64 bits (exec_float.c). */
uint64_t emu_cvt(const emu_insn *in, uint64_t a);
/* cvt between integer types without .sat: extended from the source's width by its signedness,
 * truncated to the destination's and extended again by its signedness. */
static inline uint64_t emu_cvt_int(uint64_t a, int at, int dt) {
  int as = emu_type_size(at), ds = emu_type_size(dt);
  a = emu_type_kind(at) == EMU_K_S ? (uint64_t)emu_sext(a, as) : emu_zext(a, as);
  return emu_type_kind(dt) == EMU_K_S ? (uint64_t)emu_sext(a, ds) : emu_zext(a, ds);
}
/* min/max of PTX: a NaN operand loses, -0 < +0, two NaNs give the canonical NaN. */
float emu_fminmaxf(float a, float b, int max);
double emu_fminmaxd(double a, double b, int max);
#define emu_fminmax(a, b, max)                                                                     \
  __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(a), float),                        \
                        emu_fminmaxf((float)(a), (float)(b), max),                                 \
                        emu_fminmaxd((double)(a), (double)(b), max))

/* Integer helpers of the operation table (ops.h). */
static inline int64_t emu_sat32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
}
static inline uint64_t emu_brev64(uint64_t v) {
  uint64_t r = 0;
  for (int k = 0; k < 64; k++) r |= ((v >> k) & 1) << (63 - k);
  return r;
}
/* bfe: len bits from pos (both mod 256), sign-extended from the last bit taken when sg. */
static inline uint64_t emu_bfe(uint64_t a, uint32_t pos, uint32_t len, uint32_t bits, int sg) {
  pos &= 0xff, len &= 0xff;
  uint32_t sp = pos + len - 1 > bits - 1 ? bits - 1 : pos + len - 1;
  uint64_t sbit = sg && len ? (a >> sp) & 1 : 0, r = 0;
  for (uint32_t k = 0; k < bits; k++)
    r |= ((k < len && pos + k < bits) ? (a >> (pos + k)) & 1 : sbit) << k;
  return r;
}
/* bfi: len bits of a into b at pos (both mod 256). */
static inline uint64_t emu_bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, uint32_t bits) {
  pos &= 0xff, len &= 0xff;
  for (uint32_t k = 0; k < len && pos + k < bits; k++)
    b = (b & ~(1ull << (pos + k))) | ((a >> k) & 1) << (pos + k);
  return b;
}
static inline uint32_t emu_lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (int k = 0; k < 8; k++)
    if (lut >> k & 1) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  return r;
}

#endif
