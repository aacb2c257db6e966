/* The PTX printer's shared state and helpers (ptx/emit.c: registers and instruction
 * text; ptx/expr.c: expressions; ptx/address.c: addresses; ptx/print.c: the walk hooks,
 * kernels and module). Internal to ptx/. */
#ifndef SJ_PTX_PRINT_H
#define SJ_PTX_PRINT_H

#include <stddef.h>

#include <isl/ast.h>

#include "base/buf.h"
#include "sched/sched.h"

enum { PRED, B32, B64, F32, F64, NCLASS };
extern const char *const sj_px_reg_prefix[NCLASS]; /* "%r", ... */
extern const char *const sj_px_reg_type[NCLASS];   /* ".b32", ... */

typedef struct opnd {
  char s[40]; /* a register or an immediate */
} opnd;

typedef struct memo {
  char key[96];
  opnd val;
} memo;

typedef struct ptx {
  const sj_model *m;
  int fast;    /* fast math: contraction and approximate division */
  sj_buf out;  /* the module */
  sj_buf body; /* the current kernel's instructions */
  const char *kname;
  int nreg[NCLASS];
  int nlabel;
  int iter[256];      /* register of iterator c<d>, -1 if none */
  long iter_off[256]; /* its value is that register plus this constant (unrolled copies) */
  const sj_kernel_map *map;
  /* the unrolled mapped loop being printed (kernels map at most one: member 0) */
  int unroll_depth, unroll_full, unroll_partial, unroll_skip, unroll_end, unroll_memos;
  int *array_base; /* by array id */
  int *written;    /* by array id: stored to in this kernel */
  int *scalar;     /* by parameter position */
  int *local;      /* by local id */
  /* open loops and ifs */
  int loop_head[64], loop_end[64], loop_memos[64], nloops;
  /* addresses strength-reduced in the loop: pointer registers advanced at the latch */
  int reduced_reg[64][16];
  long reduced_step[64][16];
  int nreduced[64];
  int if_else[64], if_end[64], if_has_else[64], if_memos[64], nifs;
  /* the statement instance being printed */
  const sj_pstmt *stmt;
  int call_iter[32];
  isl_ast_expr *call; /* the instance's call: iterator values as expressions */
  memo *memos;
  int nmemos;
} ptx;

/* Values computed on one path of a branch are not defined after it: a region remembers
 * what was known before it. */
typedef struct region {
  int nmemos;
  int call_iter[32];
} region;

/* emit.c */
void sj_px_emit(ptx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sj_px_new_label(ptx *x);
void sj_px_place_label(ptx *x, int l);
int sj_px_new_reg(ptx *x, int cls);
opnd sj_px_reg_opnd(int cls, int n);
opnd sj_px_fresh(ptx *x, int cls);
opnd sj_px_imm(long v);
int sj_px_is_imm(opnd o);
opnd sj_px_in_reg64(ptx *x, opnd v);
opnd sj_px_binop64(ptx *x, const char *op, opnd a, opnd b);
int sj_px_cls_of(sj_type t);
const char *sj_px_ty(sj_type t);
int sj_px_size_of(sj_type t);
opnd *sj_px_find_memo(ptx *x, const char *key);
void sj_px_add_memo(ptx *x, const char *key, opnd v);
region sj_px_enter(const ptx *x);
void sj_px_leave(ptx *x, const region *r);

/* expr.c */
opnd sj_px_iexpr(ptx *x, __isl_keep isl_ast_expr *e);
opnd sj_px_icond(ptx *x, __isl_keep isl_ast_expr *e);
opnd sj_px_uval(ptx *x, const sj_expr *e);
opnd sj_px_in_reg(ptx *x, opnd v, sj_type t);

/* address.c */
opnd sj_px_atom64(ptx *x, const sj_expr *a);
opnd sj_px_address(ptx *x, const sj_expr *ref, char *out, size_t size);
void sj_px_hoist_addresses(ptx *x, __isl_keep isl_ast_node *loop);
void sj_px_reduce_loop(ptx *x, __isl_keep isl_ast_node *loop, int depth, int level);

#endif
