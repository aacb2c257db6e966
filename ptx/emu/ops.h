/* The operations of the emulator: one table that the parser (names, builders, counter classes)
 * and the executor (what each lane computes) share.
 *
 * EMU_OPS(X): X(ID, name, alias, family, class, int_types, int_expr, float_types, float_expr)
 *   ID           EMU_OP_<ID>
 *   name, alias  the PTX mnemonics that introduce it; "" when only a modifier of another name
 *                selects it (mul.hi is MULHI, add.sat.s32 is ADDSAT, cvta.to is CVTA_TO)
 *   family       the parser's builder: operations that share operand and type rules
 *   class        its counter class (float types count as EMU_CLS_FLOAT)
 *   int_types    the integer type classes the executor computes it for by int_expr, one lane at
 *                a time (NONE: not an integer lane operation). int_expr sees a, b, c: the
 *                sources as U, the unsigned type of the width; V, the arithmetic type (signed
 *                for .s types); WV and WU, twice as wide; BITS, SG (signed), MASK (all ones);
 *                bn, cn, en: the second, third and fourth sources as u32 (shift counts, bit
 *                positions), cw: the third as WU. Its value is the destination register's.
 *   float_types  the same for f32 and f64 (FLT: both, F32: f32 only), by float_expr on a, b, c
 *                of type T. Every float operation has a general path (rounding mode, .ftz,
 *                .sat); FAST ones also a direct one for .rn without .ftz and .sat. */
#ifndef EMU_OPS_H
#define EMU_OPS_H

/* clang-format off */
#define EMU_OPS(X)                                                                                 \
  X(NOP, "", "", NONE, OTHER, NONE, 0, NONE, 0)                                                    \
  X(MOV, "mov", "", MOV, MOVE, NONE, 0, NONE, 0)                                                   \
  X(PACK, "", "", MOV, MOVE, NONE, 0, NONE, 0)                                                     \
  X(UNPACK, "", "", MOV, MOVE, NONE, 0, NONE, 0)                                                   \
  X(ADD, "add", "", ARITH, INT, INT, (U)(a + b), FLT_FAST, a + b)                                  \
  X(SUB, "sub", "", ARITH, INT, INT, (U)(a - b), FLT_FAST, a - b)                                  \
  X(MUL, "mul", "", ARITH, INT, INT, (U)((uint64_t)a * b), FLT_FAST, a * b)                        \
  X(MULHI, "", "", ARITH, INT, INT, (U)(((WV)(V)a * (WV)(V)b) >> BITS), NONE, 0)                   \
  X(MULWIDE, "", "", ARITH, INT, NARROW, (WU)((WV)(V)a * (WV)(V)b), NONE, 0)                       \
  X(MAD, "mad", "", ARITH, INT, INT, (U)((uint64_t)a * b + c), NONE, 0)                            \
  X(MADHI, "", "", ARITH, INT, INT, (U)((((WV)(V)a * (WV)(V)b) >> BITS) + c), NONE, 0)             \
  X(MADWIDE, "", "", ARITH, INT, NARROW, (WU)((WU)((WV)(V)a * (WV)(V)b) + cw), NONE, 0)            \
  X(ADDSAT, "", "", ARITH, INT, S32, (U)emu_sat32((int64_t)(V)a + (V)b), NONE, 0)                  \
  X(SUBSAT, "", "", ARITH, INT, S32, (U)emu_sat32((int64_t)(V)a - (V)b), NONE, 0)                  \
  X(MADHISAT, "", "", ARITH, INT, S32,                                                             \
    (U)emu_sat32((((int64_t)(V)a * (V)b) >> 32) + (V)c), NONE, 0)                                  \
  /* PTX leaves division by zero unspecified: all ones (quotient), the dividend (remainder). */    \
  X(DIV, "div", "", ARITH, INT, INT,                                                               \
    (U)(b == 0 ? MASK : SG && (V)b == (V)-1 ? (U)(0 - a) : (U)((V)a / (V)b)), FLT, a / b)                    \
  X(REM, "rem", "", ARITH, INT, INT,                                                               \
    (U)(b == 0 ? a : SG && (V)b == (V)-1 ? (U)0 : (U)((V)a % (V)b)), NONE, 0)                              \
  X(MIN, "min", "", ARITH, INT, INT, (U)((V)a < (V)b ? a : b), FLT, emu_fminmax(a, b, 0))          \
  X(MAX, "max", "", ARITH, INT, INT, (U)((V)a > (V)b ? a : b), FLT, emu_fminmax(a, b, 1))          \
  X(FMA, "fma", "", ARITH, FLOAT, NONE, 0, FLT_FAST, fma(a, b, c))                                 \
  X(COPYSIGN, "copysign", "", ARITH, FLOAT, NONE, 0, FLT, copysign(b, a))                          \
  X(ABS, "abs", "", UNARY, INT, SIGNED, (U)((V)a < 0 ? 0 - a : a), FLT, fabs(a))                   \
  X(NEG, "neg", "", UNARY, INT, SIGNED, (U)(0 - a), FLT, -a)                                       \
  X(SQRT, "sqrt", "", UNARY, FLOAT, NONE, 0, FLT, sqrt(a))                                         \
  X(RCP, "rcp", "", UNARY, FLOAT, NONE, 0, FLT, 1 / a)                                             \
  X(RSQRT, "rsqrt", "", UNARY, FLOAT, NONE, 0, FLT, (T)(1.0 / sqrt((double)a)))                    \
  X(SIN, "sin", "", UNARY, FLOAT, NONE, 0, F32, sin(a))                                            \
  X(COS, "cos", "", UNARY, FLOAT, NONE, 0, F32, cos(a))                                            \
  X(LG2, "lg2", "", UNARY, FLOAT, NONE, 0, F32, log2(a))                                           \
  X(EX2, "ex2", "", UNARY, FLOAT, NONE, 0, F32, exp2(a))                                           \
  X(AND, "and", "", LOGIC, INT, LOGIC, (U)(a & b), NONE, 0)                                        \
  X(OR, "or", "", LOGIC, INT, LOGIC, (U)(a | b), NONE, 0)                                          \
  X(XOR, "xor", "", LOGIC, INT, LOGIC, (U)(a ^ b), NONE, 0)                                        \
  X(NOT, "not", "", LOGIC, INT, LOGIC, (U)(~a & MASK), NONE, 0)                                    \
  X(CNOT, "cnot", "", LOGIC, INT, BIT, (U)(a == 0), NONE, 0)                                       \
  /* Shift amounts beyond the width give the width's result. */                                    \
  X(SHL, "shl", "", LOGIC, INT, BIT, (U)(bn >= BITS ? 0 : (uint64_t)a << bn), NONE, 0)             \
  X(SHR, "shr", "", LOGIC, INT, INT,                                                               \
    (U)(bn >= BITS ? (SG && a >> (BITS - 1) ? MASK : (U)0) : (U)((V)a >> bn)), NONE, 0)                           \
  X(POPC, "popc", "", LOGIC, INT, BIT32UP, (uint32_t)__builtin_popcountll(a), NONE, 0)             \
  X(CLZ, "clz", "", LOGIC, INT, BIT32UP,                                                           \
    (uint32_t)(a ? __builtin_clzll(a) - (64 - BITS) : BITS), NONE, 0)                              \
  X(BREV, "brev", "", LOGIC, INT, BIT32UP, (U)(emu_brev64(a) >> (64 - BITS)), NONE, 0)             \
  X(BFE, "bfe", "", LOGIC, INT, INT32UP, (U)emu_bfe(a, bn, cn, BITS, SG), NONE, 0)                 \
  X(BFI, "bfi", "", LOGIC, INT, BIT32UP, (U)emu_bfi(a, b, cn, en, BITS), NONE, 0)                  \
  X(LOP3, "lop3", "", LOGIC, INT, B32, emu_lop3(a, b, c, in->mode), NONE, 0)                       \
  X(TESTP, "testp", "", TESTP, FLOAT, NONE, 0, NONE, 0)                                            \
  X(SETP, "setp", "", SETP, INT, NONE, 0, NONE, 0)                                                 \
  X(SELP, "selp", "", SELP, MOVE, NONE, 0, NONE, 0)                                                \
  X(CVT, "cvt", "", CVT, CONV, NONE, 0, NONE, 0)                                                   \
  X(CVTA, "cvta", "", CVTA, MOVE, NONE, 0, NONE, 0)                                                \
  X(CVTA_TO, "", "", CVTA, MOVE, NONE, 0, NONE, 0)                                                 \
  X(LD, "ld", "", MEM, MEM_GLOBAL, NONE, 0, NONE, 0)                                               \
  X(ST, "st", "", MEM, MEM_GLOBAL, NONE, 0, NONE, 0)                                               \
  X(ATOM, "atom", "red", ATOM, ATOMIC, NONE, 0, NONE, 0)                                           \
  X(BRA, "bra", "", CONTROL, CONTROL, NONE, 0, NONE, 0)                                            \
  X(RET, "ret", "", CONTROL, CONTROL, NONE, 0, NONE, 0)                                            \
  X(EXIT, "exit", "", CONTROL, CONTROL, NONE, 0, NONE, 0)                                          \
  X(BAR, "bar", "barrier", BAR, SYNC, NONE, 0, NONE, 0)                                            \
  X(BARWARP, "", "", BAR, WARP, NONE, 0, NONE, 0)                                                  \
  X(SHFL, "shfl", "", SHFL, WARP, NONE, 0, NONE, 0)                                                \
  X(VOTE, "vote", "", VOTE, WARP, NONE, 0, NONE, 0)                                                \
  X(ACTIVEMASK, "activemask", "", ACTIVEMASK, WARP, NONE, 0, NONE, 0)                              \
  X(MEMBAR, "membar", "fence", MEMBAR, SYNC, NONE, 0, NONE, 0)

/* Comparisons of setp: X(ID, name, int_kind, int_expr, float_kind, float_expr). Integer
 * comparisons see a, b as U (LO..HS compare them so, unsigned) and cast to V; float ones see
 * a, b as T, where every C comparison with a NaN is false. kind NONE: not defined there. */
#define EMU_CMPS(X)                                                                                \
  X(EQ, "eq", INT, (V)a == (V)b, FLT, a == b)                                                      \
  X(NE, "ne", INT, (V)a != (V)b, FLT, a < b || a > b)                                              \
  X(LT, "lt", INT, (V)a < (V)b, FLT, a < b)                                                        \
  X(LE, "le", INT, (V)a <= (V)b, FLT, a <= b)                                                      \
  X(GT, "gt", INT, (V)a > (V)b, FLT, a > b)                                                        \
  X(GE, "ge", INT, (V)a >= (V)b, FLT, a >= b)                                                      \
  X(LO, "lo", INT, a < b, NONE, 0)                                                                 \
  X(LS, "ls", INT, a <= b, NONE, 0)                                                                \
  X(HI, "hi", INT, a > b, NONE, 0)                                                                 \
  X(HS, "hs", INT, a >= b, NONE, 0)                                                                \
  X(EQU, "equ", NONE, 0, FLT, !(a < b || a > b))                                                   \
  X(NEU, "neu", NONE, 0, FLT, !(a == b))                                                           \
  X(LTU, "ltu", NONE, 0, FLT, !(a >= b))                                                           \
  X(LEU, "leu", NONE, 0, FLT, !(a > b))                                                            \
  X(GTU, "gtu", NONE, 0, FLT, !(a <= b))                                                           \
  X(GEU, "geu", NONE, 0, FLT, !(a < b))                                                            \
  X(NUM, "num", NONE, 0, FLT, a == a && b == b)                                                    \
  X(ISNAN, "nan", NONE, 0, FLT, a != a || b != b)
/* clang-format on */

#define EMU_OP_ENUM(ID, name, alias, family, class, it, ie, ft, fe) EMU_OP_##ID,
enum { EMU_OPS(EMU_OP_ENUM) EMU_OP_COUNT };
#undef EMU_OP_ENUM
#define EMU_CMP_ENUM(ID, name, ik, ie, fk, fe) EMU_CMP_##ID,
enum { EMU_CMPS(EMU_CMP_ENUM) EMU_CMP_COUNT };
#undef EMU_CMP_ENUM

#endif
