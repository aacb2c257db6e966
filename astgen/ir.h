/* The typed kernel IR between the isl AST and text: what the C target (host/cprint.c) and
 * the PTX target (ptx/emit.c) print.
 *
 * A module is a list of functions: the CPU kernel (one SPMD function every worker thread
 * runs), or for a GPU the host function (loops and launches) and one function per kernel.
 * A function body is a tree of blocks: instructions, structured loops and ifs. Registers
 * are virtual and typed; most are defined once (values), some are assigned repeatedly
 * (variables: loop iterators, user locals, pointers advanced at a loop's latch, values
 * merged from two branches). Integer arithmetic is two's complement at its type's width;
 * float arithmetic rounds to nearest at its type's precision, as C evaluates it on
 * targets with FLT_EVAL_METHOD 0; conversions follow C. Loads and stores address an
 * element: a pointer register plus a constant number of elements.
 *
 * Everything here is built by astgen/lower*.c and rewritten by the passes of
 * astgen/opt.c; targets only print. */
#ifndef SJ_IR_H
#define SJ_IR_H

#include <stddef.h>

#include "base/error.h"

typedef enum sj_ir_type {
  SJ_IR_PRED,
  SJ_IR_S32,
  SJ_IR_S64,
  SJ_IR_F32,
  SJ_IR_F64,
  SJ_IR_PTR, /* an element address: element type, address space and array in the register */
  /* Storage types: loads, stores, conversions and moves only (C promotes them to int before
   * arithmetic); in PTX they live in 32-bit registers. */
  SJ_IR_S8,
  SJ_IR_U8,
  SJ_IR_S16,
  SJ_IR_U16,
  /* unsigned arithmetic: modulo 2^32 and 2^64; comparisons, division, remainder and
   * conversions unsigned */
  SJ_IR_U32,
  SJ_IR_U64,
  SJ_IR_NTYPES
} sj_ir_type;

typedef enum sj_ir_space { SJ_SPACE_GLOBAL, SJ_SPACE_SHARED } sj_ir_space;

typedef enum sj_ir_cmp {
  SJ_CMP_EQ,
  SJ_CMP_NE,
  SJ_CMP_LT,
  SJ_CMP_LE,
  SJ_CMP_GT,
  SJ_CMP_GE
} sj_ir_cmp;

/* Operations. dst = op(a, b, c) unless said otherwise. */
typedef enum sj_ir_op {
  SJ_IR_MOV,
  SJ_IR_ADD,
  SJ_IR_SUB,
  SJ_IR_MUL,  /* integers: the low half */
  SJ_IR_DIV,  /* integers: truncating; floats: IEEE (approx set: fast approximate division) */
  SJ_IR_REM,  /* integers: sign of the dividend */
  SJ_IR_FDIV, /* integer floor division by a positive constant b */
  SJ_IR_MIN,  /* floats: a NaN operand yields the other one, as fmin/fmax */
  SJ_IR_MAX,
  SJ_IR_NEG,
  SJ_IR_ABS,
  SJ_IR_SQRT,
  SJ_IR_FMA, /* a * b + c, one rounding: fast math only */
  SJ_IR_AND, /* predicates */
  SJ_IR_OR,
  SJ_IR_NOT,
  SJ_IR_CVT,     /* to type from a's type: to floats rounded to nearest, to integers truncated */
  SJ_IR_SETP,    /* dst (pred) = a cmp b at a's type; floats: NE is unordered, others ordered;
                    red AND or OR (sj_ir_fuse_compares): that of it and c, a predicate */
  SJ_IR_SELP,    /* dst = c ? a : b, c a predicate */
  SJ_IR_PTRADD,  /* dst (pointer) = a (pointer) + b (S64 elements) */
  SJ_IR_ARRAY,   /* dst (pointer) = the array parameter of the function with index imm */
  SJ_IR_PARAM,   /* dst = the scalar parameter of the function with index imm */
  SJ_IR_SHARED,  /* dst (pointer) = the kernel's shared array imm (sj_ir_func.shared) */
  SJ_IR_SPECIAL, /* dst (S64) = the special value imm (sj_ir_special) */
  SJ_IR_LD,      /* dst = *(a + imm) */
  SJ_IR_ST,      /* *(a + imm) = b */
  SJ_IR_BARRIER, /* all threads of the CPU pool or of the GPU block */
  SJ_IR_LAUNCH,  /* host: kernel function imm with the values args */
  SJ_IR_TRAP,    /* when a (a predicate) holds: the run fails with error code imm */
  SJ_IR_MATH,    /* dst = math function imm (sj_ir_math) of a (and b) at a float type */
  /* Bits: C's operators, and for targets that implement the math functions themselves
   * (astgen/mathexp.c): */
  SJ_IR_SHL,     /* integers: a << b, b below the width (an immediate or a 32-bit register) */
  SJ_IR_SHR,     /* integers: a >> b (arithmetic for signed types), b as for SHL */
  SJ_IR_BAND,    /* integers: a & b */
  SJ_IR_BOR,     /* integers: a | b */
  SJ_IR_XOR,     /* integers: a ^ b */
  SJ_IR_BITCAST, /* dst = the bits of a (a float and an integer of one size) as type */
  /* Warps (GPU kernels whose block is a whole number of warps wide along x): */
  SJ_IR_SHFL, /* dst = the value a has in lane (this lane xor imm) of the warp; every lane of
                 the warp runs it, never under a guard or a branch; not pure: never moved */
  SJ_IR_ATOM, /* *(a + imm) = *(a + imm) red b, atomically (floats' min and max as fmin and
                 fmax: a NaN operand yields the other one); no destination */
  SJ_IR_NOPS
} sj_ir_op;

/* The math functions of SJ_IR_MATH beyond the operations above (sqrt, fabs, fmin, fmax).
 * The C target calls the C library (bit for bit what the user's compiled function does);
 * targets without one implement them (astgen/mathexp.c). */
typedef enum sj_ir_math {
  SJ_MATH_EXP,
  SJ_MATH_EXP2,
  SJ_MATH_EXPM1,
  SJ_MATH_LOG,
  SJ_MATH_LOG2,
  SJ_MATH_LOG10,
  SJ_MATH_LOG1P,
  SJ_MATH_POW,
  SJ_MATH_SIN,
  SJ_MATH_COS,
  SJ_MATH_TAN,
  SJ_MATH_SINH,
  SJ_MATH_COSH,
  SJ_MATH_TANH,
  SJ_MATH_FLOOR,
  SJ_MATH_CEIL,
  SJ_MATH_TRUNC,
  SJ_MATH_ROUND,
  SJ_MATH_FMOD,
  SJ_MATH_COPYSIGN,
  SJ_MATH_N
} sj_ir_math;

typedef enum sj_ir_special {
  SJ_SPECIAL_TID_X,
  SJ_SPECIAL_TID_Y,
  SJ_SPECIAL_TID_Z,
  SJ_SPECIAL_CTAID_X,
  SJ_SPECIAL_CTAID_Y,
  SJ_SPECIAL_CTAID_Z,
  SJ_SPECIAL_CPU_TID, /* CPU: this worker's number and the worker count */
  SJ_SPECIAL_CPU_NTH
} sj_ir_special;

typedef enum sj_ir_vkind { SJ_V_NONE, SJ_V_REG, SJ_V_INT, SJ_V_FLOAT } sj_ir_vkind;

/* An operand: a register or an immediate of a type (floats: the exact value of that type). */
typedef struct sj_ir_val {
  sj_ir_vkind kind;
  sj_ir_type type;
  int reg;
  long i;
  double f;
} sj_ir_val;

typedef struct sj_ir_reg {
  sj_ir_type type;
  sj_ir_type elem;   /* pointers: element type */
  sj_ir_space space; /* pointers */
  int array;         /* pointers: the array they point into (its id); else -1 */
  int is_var;        /* assigned more than once */
  int is_iter;       /* a loop iterator: assigned only by its loop */
  int level;         /* loop depth whose iterations may change it (0: the whole function) */
  int version;       /* bumped by each assignment of a variable, for value numbering */
  const char *name;  /* user locals: their name, for readable C */
} sj_ir_reg;

typedef struct sj_ir_ins {
  sj_ir_op op;
  sj_ir_type type; /* the operation's type; CVT: the destination type */
  int dst;         /* 0: none */
  sj_ir_val a, b, c;
  long imm;
  sj_ir_cmp cmp;
  int guard;  /* a predicate register: the instruction runs only where it holds (0: always) */
  int approx; /* DIV: fast-math approximate division */
  int nc;     /* LD: the array is never written by this function (read-only cache) */
  int nargs;  /* LAUNCH */
  sj_ir_val *args;
  sj_ir_op red; /* ATOM: how the element combines with b (SJ_IR_ADD, SJ_IR_MIN, SJ_IR_MAX); a
                   float MIN or MAX with imm 1: b replaces the element only where b cmp it;
                   SETP: 0, or how it joins c */
} sj_ir_ins;

typedef struct sj_ir_node sj_ir_node;

typedef struct sj_ir_block {
  sj_ir_node **v;
  int n, cap;
} sj_ir_block;

typedef enum sj_ir_node_kind { SJ_IR_INS, SJ_IR_LOOP, SJ_IR_IF } sj_ir_node_kind;

/* LOOP: iter = init; loop { head; if (!cond) break; body; latch; iter += step }.
 * IF: if (cond) then else other. cond is a predicate value computed before. */
struct sj_ir_node {
  sj_ir_node_kind kind;
  sj_ir_ins ins;
  int iter;
  sj_ir_val init, step, cond;
  sj_ir_block head, body, latch, then, other;
};

typedef enum sj_ir_param_kind {
  SJ_PARAM_ARRAY,     /* a global array: index = the array's id */
  SJ_PARAM_SCALAR,    /* a float/double argument: index = its position among the scalars */
  SJ_PARAM_HOST_ITER, /* kernels: the value of a host loop iterator (S64) */
  SJ_PARAM_ERROR      /* kernels: where a TRAP writes its code */
} sj_ir_param_kind;

typedef struct sj_ir_param {
  sj_ir_param_kind kind;
  sj_ir_type type; /* arrays: element type */
  int index;
  int is_const; /* arrays never written anywhere */
  const char *name;
} sj_ir_param;

/* An array in the shared memory of a GPU block: staged values a kernel works on. */
typedef struct sj_ir_shared {
  sj_ir_type elem;
  long count; /* elements */
} sj_ir_shared;

typedef enum sj_ir_func_kind { SJ_FUNC_CPU, SJ_FUNC_KERNEL, SJ_FUNC_HOST } sj_ir_func_kind;

typedef struct sj_ir_func {
  sj_ir_func_kind kind;
  char *name;
  int nparams;
  sj_ir_param *params;
  int nregs; /* registers 1 .. nregs - 1 */
  sj_ir_reg *regs;
  sj_ir_block body;
  unsigned grid[3], block[3]; /* kernels */
  int max_regs;               /* kernels: registers per thread ptxas may use; 0: its choice */
  int share_near; /* kernels: cheap integer values computed again where shared far (cse.c) */
  int nshared;    /* kernels: arrays in shared memory */
  sj_ir_shared *shared;
  int traps; /* some TRAP may fire */
  char *why; /* kernels: a line for the explanation */
} sj_ir_func;

typedef struct sj_ir_module {
  const char *source_fn; /* the C function's name */
  int nfuncs;
  sj_ir_func **funcs; /* the host or CPU function first */
  int ntraps;
  sj_trap *traps; /* what TRAP code k (1 ..) checks, and where in the source */
} sj_ir_module;

/* --- values --- */
sj_ir_val sj_ir_reg_val(const sj_ir_func *f, int reg);
sj_ir_val sj_ir_int(sj_ir_type type, long v);
sj_ir_val sj_ir_float(sj_ir_type type, double v);
int sj_ir_is_imm(sj_ir_val v);
int sj_ir_type_is_float(sj_ir_type t);
int sj_ir_type_size(sj_ir_type t); /* bytes of a value (pointers: 8) */
int sj_ir_type_is_unsigned(sj_ir_type t);
int sj_ir_type_is_int(sj_ir_type t); /* every integer type (not predicates, not pointers) */
/* The C library's name of math function m at type t (F32: the f form), "?" if none. */
const char *sj_ir_math_name(sj_ir_math m, sj_ir_type t);
int sj_ir_math_nargs(sj_ir_math m);
/* Whether the instruction only computes its destination and cannot fail: it may move
 * (unless its destination is a variable). */
int sj_ir_is_pure(const sj_ir_ins *ins);
/* Whether a store through register ptr at offset may write what a load through load_ptr at
 * load_offset read: the same space, the same array (or one unknown), another pointer or the same
 * one at the same offset. Only this thread's stores count: another thread writing the element
 * before the next barrier would be a race, and the schedules run none. */
int sj_ir_may_alias(const sj_ir_func *f, int ptr, long offset, int load_ptr, long load_offset);

/* The value of op at type t on constants x and y (y none for one operand): integer arithmetic
 * that cannot trap, and conversions of signed integers; 0 where it is not folded
 * (astgen/irbuild.c). */
int sj_ir_fold(sj_ir_op op, sj_ir_type t, sj_ir_val x, sj_ir_val y, sj_ir_val *out);
/* --- functions and blocks --- */
sj_ir_func *sj_ir_func_new(sj_ir_func_kind kind, const char *name);
void sj_ir_func_free(sj_ir_func *f);
void sj_ir_module_free(sj_ir_module *m);
int sj_ir_add_param(sj_ir_func *f, sj_ir_param p);   /* its position */
int sj_ir_add_shared(sj_ir_func *f, sj_ir_shared a); /* its index */
/* The position of the parameter of kind and index, or -1. */
int sj_ir_find_param(const sj_ir_func *f, sj_ir_param_kind kind, int index);
int sj_ir_new_reg(sj_ir_func *f, sj_ir_type type, int level);
sj_ir_node *sj_ir_node_new(sj_ir_node_kind kind);
/* An instruction node dst = op a, b at type (its other fields 0). */
sj_ir_node *sj_ir_ins_node(sj_ir_op op, sj_ir_type type, int dst, sj_ir_val a, sj_ir_val b);
void sj_ir_block_push(sj_ir_block *b, sj_ir_node *n);
void sj_ir_block_insert(sj_ir_block *b, int at, sj_ir_node *n);
void sj_ir_node_free(sj_ir_node *n);
void sj_ir_block_clear(sj_ir_block *b); /* frees the nodes */

/* Visits every instruction of a block and the blocks inside it, in program order. */
void sj_ir_foreach_ins(sj_ir_block *b, void (*fn)(sj_ir_ins *ins, void *user), void *user);
/* Calls fn on each register operand of ins (a, b, c, args, guard), by address: fn may put
 * another register in its place. */
void sj_ir_foreach_use(sj_ir_ins *ins, void (*fn)(int *reg, void *user), void *user);
/* Makes ins read register to where it reads from. */
void sj_ir_rename_uses(sj_ir_ins *ins, int from, int to);

/* --- passes (astgen/opt.c) --- */
/* Moves pure loop-invariant instructions before their loops, turns addresses that move
 * by a constant in an innermost loop into pointers advanced at its latch, computes common
 * values once (sj_ir_share), and removes what is no longer used. */
void sj_ir_optimize(sj_ir_func *f);
/* Instructions whose values nothing reads, removed (part of sj_ir_optimize). */
void sj_ir_remove_dead(sj_ir_func *f);
/* Comparisons that the ranges of loop iterators and thread ids decide, replaced by their
 * result (astgen/range.c; part of sj_ir_optimize). */
void sj_ir_fold_ranges(sj_ir_func *f);
/* The values of the registers that straight-line integer code at the top of f's body computes
 * from block and thread ids and constants: lo[reg] .. hi[reg], lo above hi where not known
 * (astgen/range.c). */
void sj_ir_top_spans(const sj_ir_func *f, long *lo, long *hi);
/* A kernel whose thread's position decides most of its tests in most threads: a copy of its
 * code for those threads, guarded, in which sj_ir_fold_ranges decides them (astgen/unswitch.c;
 * before sj_ir_optimize). */
void sj_ir_unswitch(sj_ir_func *f);
/* Reads of a variable that holds a copy of another register, or an integer constant, read that
 * register or constant (in straight-line code, and into the branches after it), and what that
 * makes constant is folded; assignments of variables never read, or assigned again or followed
 * by the function's end before any read, are dropped (astgen/copies.c; part of sj_ir_optimize). */
void sj_ir_forward_copies(sj_ir_func *f);
/* Elements loop reads and writes at one address, kept in a register over it (astgen/promote.c;
 * part of sj_ir_optimize): loads and stores in front of and after the loop, which lies at *at
 * of out (*at moves on past what goes in front). */
void sj_ir_promote(sj_ir_func *f, sj_ir_node *loop, sj_ir_block *out, int *at);
/* In a kernel, a value a loop's iteration loads through a pointer its latch advances by a
 * constant, which the next iteration loads again, kept in a register (astgen/promote.c; part of
 * sj_ir_optimize, after sj_ir_share has made equal pointers one): the first iteration's load in
 * front of the loop, as for sj_ir_promote. */
void sj_ir_carry(sj_ir_func *f);
/* Integer work of branches moved before them, and values computed once where an equal one
 * dominates them (astgen/cse.c; part of sj_ir_optimize). */
void sj_ir_share(sj_ir_func *f);
/* In a kernel, loads of an element loaded or stored before with nothing between that may write
 * it removed: their uses read the value known, also one loaded in an earlier branch on a
 * predicate that holds again where it is used (astgen/reload.c; after sj_ir_optimize, which
 * merges adjacent branches on one condition, as the printer's last passes: a value so used
 * does not dominate its use, which the passes of sj_ir_optimize assume). */
void sj_ir_reload(sj_ir_func *f);
/* Ifs without else whose code is at most max plain instructions become guarded
 * instructions (PTX predication instead of a branch). */
void sj_ir_predicate(sj_ir_func *f, int max);
/* A comparison whose only use is an and or an or later in its block joined to it: SETP with
 * red (PTX's setp with a boolean operation; for targets that print it). */
void sj_ir_fuse_compares(sj_ir_func *f);
/* The 32-bit registers the function's values hold at most at once (astgen/pressure.c): an
 * estimate of what ptxas allocates. */
int sj_ir_pressure(const sj_ir_func *f);
/* Uses of each register, for printers that fold single-use values into expressions. */
int *sj_ir_count_uses(const sj_ir_func *f);
/* Adds the uses of each register by the code of b to uses. */
void sj_ir_add_uses(const sj_ir_block *b, int *uses);
/* For targets without a math library (astgen/mathexp.c): every SJ_IR_MATH but floor, ceil
 * and trunc becomes plain arithmetic on the function's own registers. */
void sj_ir_expand_math(sj_ir_func *f);

#endif
