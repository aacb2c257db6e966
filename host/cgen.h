/* The C printer's shared state (host/cexpr.c: expressions; host/coffset.c: array offsets,
 * hoisting and pointer loops; host/cgen.c: the walk hooks, the CPU kernel and the GPU host
 * loop). Internal to host/. */
#ifndef SJ_CGEN_H
#define SJ_CGEN_H

#include <isl/ast.h>

#include "base/buf.h"
#include "sched/sched.h"

/* An access of a statement instance inside an innermost loop: the part of its offset that
 * does not change in the loop is computed once, before it, into __sj_o<var>. */
typedef struct hoisted {
  const isl_ast_expr *call; /* the statement instance */
  const sj_expr *ref;
  isl_id *inner; /* the loop's iterator */
  int var;
  long stride; /* pointer loops: elements the access moves per unit of the iterator */
  /* Accesses whose invariant offsets differ by a constant share one pointer: the one of
   * entry `owner` (its var), at index delta from it. */
  int owner;
  long delta;
  long constant; /* the constant part of the invariant offset */
  char *rest;    /* the rest of it: what sharing compares */
} hoisted;

/* An innermost sequential loop whose accesses all move by constant strides runs on
 * pointers (__sj_p<var>, advanced each iteration) with its body unrolled UNROLL times and
 * a remainder loop: TinyCC keeps no values in registers, so each saved add counts. */
enum { UNROLL = 4 };

typedef struct pointer_loop {
  int active;
  int first, count; /* its accesses in the hoisted table */
  long step;        /* the loop's increment */
  const char *op;   /* "<=" or "<" against __sj_ub_<iterator> */
  char iter[32];    /* the iterator's name */
  int copy;         /* 0 .. UNROLL - 1 in the unrolled loop, UNROLL in the remainder */
} pointer_loop;

typedef struct cgen {
  const sj_model *m;
  sj_buf out;
  int indent;
  const sj_pstmt *stmt; /* the statement instance being printed */
  isl_ast_expr *call;   /* its call: iterator values */
  hoisted *hoist;
  int nhoist, nvars;
  int host; /* GPU host code: statements live in kernels, nothing to hoist */
  pointer_loop ptr;
} cgen;

/* cgen.c */
void sj_cg_line(cgen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cexpr.c */
void sj_cg_iexpr(cgen *g, __isl_keep isl_ast_expr *e); /* an isl AST integer, as long */
void sj_cg_uexpr(cgen *g, const sj_expr *e);           /* a user's expression */
void sj_cg_body_stmt(cgen *g, const sj_stmt *st);

/* coffset.c */
int sj_cg_iter_arg(const sj_pstmt *s, const sj_sym *iter); /* its position in the call */
void sj_cg_print_element(cgen *g, const sj_expr *ref);
int sj_cg_hoist_loop(cgen *g, __isl_keep isl_ast_node *loop, __isl_keep isl_id *iter);

#endif
