/* The typed AST of the C99 subset stenciljit accepts.
 *
 * The parser resolves every name and makes every implicit conversion explicit, so later
 * stages never apply C's conversion rules themselves:
 *  - each SJ_E_BINARY arithmetic node has both operands of the node's type (the usual
 *    arithmetic conversions were applied with SJ_E_CAST nodes marked implicit);
 *  - comparison, &&, || and ! nodes have type int, comparison operands share one type;
 *  - compound assignments are desugared: `A[i] += e` becomes
 *    `A[i] = (T)(A[i] + e')` with the usual conversions, so the model sees the read;
 *  - the right side of an assignment already has the type of the left side.
 * All nodes live in one arena owned by the sj_program. */
#ifndef SJ_AST_H
#define SJ_AST_H

#include <stddef.h>

#include "base/error.h"

typedef enum sj_type {
  SJ_TY_VOID,
  SJ_TY_INT,    /* C int: 32-bit */
  SJ_TY_LONG,   /* C long (and long long): 64-bit on the platforms we support */
  SJ_TY_FLOAT,  /* IEEE binary32 */
  SJ_TY_DOUBLE, /* IEEE binary64 */
  /* Storage types: values of these types are promoted to int before any arithmetic, so
   * they appear only as array elements, locals, casts and the conversions around them.
   * Plain char is one of the two char types, as the platform's C compiler has it. */
  SJ_TY_SCHAR,
  SJ_TY_UCHAR,
  SJ_TY_SHORT,
  SJ_TY_USHORT,
  /* unsigned arithmetic types: modulo 2^32 and 2^64 */
  SJ_TY_UINT,
  SJ_TY_ULONG,
  SJ_NTYPES
} sj_type;

typedef enum sj_sym_kind {
  SJ_SYM_SHAPE,  /* int or long parameter: the kernel is specialized for its value */
  SJ_SYM_SCALAR, /* float or double parameter: passed at run time */
  SJ_SYM_ARRAY,  /* array parameter with extents */
  SJ_SYM_ITER,   /* loop iterator: int, long, unsigned or unsigned long */
  SJ_SYM_LOCAL   /* local variable: a scalar, or an array with extents (rank > 0) */
} sj_sym_kind;

typedef struct sj_expr sj_expr;
typedef struct sj_stmt sj_stmt;

typedef struct sj_sym {
  sj_sym_kind kind;
  const char *name;
  sj_type type; /* scalars, iterators, locals: its type; arrays: element type */
  sj_loc loc;   /* where declared */
  int param;    /* index in the parameter list, -1 if not a parameter */
  int id;       /* dense per kind within a function: array 0.., iterator 0.., local 0.. */
  /* arrays (parameters and local arrays) */
  int rank;
  sj_expr **extents; /* rank expressions over shape parameters and integer constants; a
                      * parameter's first is NULL where it is open (float *A, float A[][M]):
                      * the model gives it what the accesses need (sj_model.extents) */
  int is_const;      /* declared const: never written */
  int is_bool;       /* declared _Bool (bool): type SJ_TY_UCHAR, every value stored 0 or 1 */
} sj_sym;

typedef enum sj_expr_kind {
  SJ_E_INT,    /* integer literal: ival, type int or long */
  SJ_E_FLOAT,  /* floating literal: fval (exactly the C value: 0.2f is (float)0.2) */
  SJ_E_VAR,    /* a shape, scalar, iterator or local: sym */
  SJ_E_INDEX,  /* array element: sym, nargs indices (each int or long), rank == nargs */
  SJ_E_UNARY,  /* op: '-', '~' (integers) or '!', args[0] */
  SJ_E_BINARY, /* op: see sj_binop, args[0], args[1] */
  SJ_E_COND,   /* args[0] ? args[1] : args[2]; args[0] has type int */
  SJ_E_CAST,   /* (type)args[0]; implicit set when the parser inserted it */
  SJ_E_CALL    /* fn: one of sj_func_id, args[0..nargs) already of the function's type */
} sj_expr_kind;

typedef enum sj_binop {
  SJ_OP_ADD,
  SJ_OP_SUB,
  SJ_OP_MUL,
  SJ_OP_DIV,  /* integer: truncating, as in C */
  SJ_OP_REM,  /* integers only, sign of the dividend, as in C */
  SJ_OP_BAND, /* integers only: & | ^ on the two's complement bits */
  SJ_OP_BOR,
  SJ_OP_XOR,
  SJ_OP_SHL, /* integers only; the count (args[1]) converted to the node's type */
  SJ_OP_SHR, /* arithmetic on signed values, as gcc and clang define it */
  SJ_OP_LT,
  SJ_OP_LE,
  SJ_OP_GT,
  SJ_OP_GE,
  SJ_OP_EQ,
  SJ_OP_NE,
  SJ_OP_AND, /* && */
  SJ_OP_OR   /* || */
} sj_binop;

/* The math library functions a kernel may call: X(ID, name, number of arguments), each in
 * its double form and then its float form (the name with an f), so that an id's low bit
 * says float. On the CPU they are the C library's own; on a GPU, code of the project with
 * the error bounds doc/math.md states. */
#define SJ_MATH_FUNCS(X)                                                                           \
  X(SQRT, "sqrt", 1)                                                                               \
  X(FABS, "fabs", 1)                                                                               \
  X(FMIN, "fmin", 2)                                                                               \
  X(FMAX, "fmax", 2)                                                                               \
  X(EXP, "exp", 1)                                                                                 \
  X(EXP2, "exp2", 1)                                                                               \
  X(EXPM1, "expm1", 1)                                                                             \
  X(LOG, "log", 1)                                                                                 \
  X(LOG2, "log2", 1)                                                                               \
  X(LOG10, "log10", 1)                                                                             \
  X(LOG1P, "log1p", 1)                                                                             \
  X(POW, "pow", 2)                                                                                 \
  X(SIN, "sin", 1)                                                                                 \
  X(COS, "cos", 1)                                                                                 \
  X(TAN, "tan", 1)                                                                                 \
  X(SINH, "sinh", 1)                                                                               \
  X(COSH, "cosh", 1)                                                                               \
  X(TANH, "tanh", 1)                                                                               \
  X(FLOOR, "floor", 1)                                                                             \
  X(CEIL, "ceil", 1)                                                                               \
  X(TRUNC, "trunc", 1)                                                                             \
  X(ROUND, "round", 1)                                                                             \
  X(FMOD, "fmod", 2)                                                                               \
  X(COPYSIGN, "copysign", 2)                                                                       \
  X(FMA, "fma", 3)

#define SJ_FN_ENUM(id, name, nargs) SJ_FN_##id, SJ_FN_##id##F,
typedef enum sj_func_id { SJ_MATH_FUNCS(SJ_FN_ENUM) SJ_NFUNCS } sj_func_id;
#undef SJ_FN_ENUM

struct sj_expr {
  sj_expr_kind kind;
  sj_type type; /* type of the value, after C's rules */
  sj_loc loc;   /* first character of the construct */
  int op;       /* sj_binop for BINARY; '-' or '!' for UNARY; sj_func_id for CALL */
  int implicit; /* CAST inserted by the parser */
  long ival;
  double fval;
  sj_sym *sym;
  int nargs;
  sj_expr **args;
};

typedef enum sj_stmt_kind {
  SJ_S_BLOCK,  /* body[0..nbody) in order */
  SJ_S_FOR,    /* for (iter = init; cond; iter += step) body[0] */
  SJ_S_IF,     /* if (cond) body[0] else body[1] (body[1] may be NULL); nbody == 2 */
  SJ_S_ASSIGN, /* lhs = rhs; lhs is SJ_E_INDEX or a SJ_E_VAR of a local */
  SJ_S_DECL    /* local declaration: sym, optional init in rhs */
} sj_stmt_kind;

struct sj_stmt {
  sj_stmt_kind kind;
  sj_loc loc;
  /* FOR */
  sj_sym *iter;
  sj_expr *init; /* of the iterator's type */
  sj_expr *cond; /* an int-typed condition (comparisons joined by &&) involving iter */
  long step;     /* nonzero constant; ++ is 1, += c is c, -- is -1 */
  /* IF */
  /* ASSIGN, DECL */
  sj_expr *lhs;
  sj_expr *rhs;
  sj_sym *sym; /* DECL */
  /* FOR, IF, BLOCK */
  int nbody;
  sj_stmt **body;
};

/* A variably modified pointer type the function declares (`float (*w)[M] = u;`): its brackets
 * in the source, [from, to), and the extents they hold; TinyCC compiles them wrongly, so the
 * reference (jit/reference.c) writes them as constants. */
typedef struct sj_vm_type {
  sj_loc from, to;
  int n;
  sj_expr **extents; /* NULL where the brackets are empty (an open first extent) */
} sj_vm_type;

typedef struct sj_func {
  const char *name;
  sj_loc loc;
  int nparams;
  sj_sym **params;
  sj_stmt *body; /* SJ_S_BLOCK */
  int narrays, niters, nlocals;
  unsigned long long calls; /* bit k: the body calls the math function k (sj_func_id) */
  int nvm;
  sj_vm_type *vm; /* the entry's own, and the array parameters of the functions it calls */
  /* calls of the source's void functions are inlined (their bodies in place of the calls);
   * the reference keeps the functions called, and the entry is the one nobody calls */
  int called;
  int ncallees;
  struct sj_func **callees;
  /* `assert(c);` among the body's first statements, c over the shape parameters: what the
   * arguments must meet (checked for each shape before anything runs, jit/compile.c) */
  int nasserts;
  struct sj_assert *asserts;
  /* a function returning a value: its last parameter, named `return` (an array of one element
   * of the return type), receives it; a caller of the entry passes a pointer to one there */
  int returns;
} sj_func;

typedef struct sj_assert {
  sj_expr *cond;
  sj_loc loc;       /* of `assert`, or of the call it checks */
  const char *what; /* NULL: the user's assert; else what fails (a check of a call's count) */
} sj_assert;

typedef struct sj_arena sj_arena;

/* A `#pragma` line the parser ignored (scop and endscop are not kept: they only delimit
 * what the whole function is anyway). */
typedef struct sj_pragma {
  const char *text; /* after `#pragma`, blanks trimmed */
  sj_loc loc;
} sj_pragma;

/* A declaration of the source the parser refused (a program's main() with its I/O beside the
 * kernel): the program stands without it, and a use of its name fails with its error. */
typedef struct sj_failure {
  const char *name; /* what it declares (NULL: unknown) */
  sj_loc loc;       /* of that name */
  sj_loc from, to;  /* its text: its first token, and just past its last (line 0: a function
                       whose calls reach a refusal, from its name to its body's end) */
  sj_error err;
} sj_failure;

typedef struct sj_program {
  sj_arena *arena;
  int nfuncs;
  sj_func **funcs;
  int nfailed; /* declarations left out, which the entry does not reach */
  sj_failure **failed;
  int npragmas;
  sj_pragma *pragmas;
  int nincludes;
  sj_pragma *includes; /* the headers `#include`s named (text: the name, as in <math.h>) */
  int nprotos;         /* declarations without a body (prototypes) */
  struct sj_func **protos;
  /* bit k: the source used the fixed-width type name sj_stdint_name(k) without declaring it
   * (as if <stdint.h> were included) */
  unsigned stdint_used;
} sj_program;

/* A deep copy of e in a (the symbols shared). */
sj_expr *sj_expr_copy(sj_arena *a, const sj_expr *e);

/* --- arena --- */
sj_arena *sj_arena_new(void);
void *sj_arena_alloc(sj_arena *a, size_t size); /* zeroed; aborts on exhaustion of memory */
char *sj_arena_strndup(sj_arena *a, const char *s, size_t n);
void sj_arena_free(sj_arena *a);
size_t sj_arena_bytes(const sj_arena *a); /* memory it holds, for the cache's bound */

void sj_program_free(sj_program *p);
/* The function called entry, or the only one when entry is NULL; NULL + err otherwise. */
sj_func *sj_program_entry(sj_program *p, const char *entry, sj_error *err);

/* The integer type names known without a header: int8_t ... uint64_t (<stdint.h>), size_t
 * and ptrdiff_t (<stddef.h>), for k = 0 .. 9; NULL beyond. Its type in *t. */
const char *sj_stdint_name(int k, sj_type *t);

/* Names for printing. */
const char *sj_type_name(sj_type t);
const char *sj_binop_text(sj_binop op);  /* "+", "<=", "&&", ... */
const char *sj_func_name(sj_func_id fn); /* "sqrt", "expf", ...; "?" if none */
int sj_func_nargs(sj_func_id fn);
/* Whether a GPU evaluates fn within the ULP bounds of doc/math.md rather than bit for bit as
 * the C library does (the transcendental functions). */
int sj_func_inexact_on_gpu(sj_func_id fn);
int sj_type_is_float(sj_type t);
int sj_type_is_integer(sj_type t);  /* every integer type */
int sj_type_is_unsigned(sj_type t); /* unsigned char, unsigned short, unsigned, unsigned long */
int sj_type_size(sj_type t);        /* bytes of a value */
/* C's integer promotion: types narrower than int become int; others are unchanged. */
sj_type sj_type_promote(sj_type t);
/* A canonical text of a pure integer expression (literals, variables, operators): equal
 * texts mean equal values in one instance. Its length, or -1 if e has other nodes (array
 * elements, calls, floats) or does not fit. */
int sj_expr_key(const sj_expr *e, char *buf, size_t size);

/* Whether a and b are the same expression over the same symbols (NULLs equal only NULL). */
int sj_expr_same(const sj_expr *a, const sj_expr *b);

#endif
