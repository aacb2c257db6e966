/* Lowering the isl AST to the kernel IR: the shared state of astgen/lower.c (structure:
 * loops, ifs, kernels, the CPU's threads) and astgen/lower_expr.c (isl and user
 * expressions, addresses, statements). Internal to astgen/. */
#ifndef SJ_LOWER_H
#define SJ_LOWER_H

#include <isl/ast.h>
#include <isl/id.h>

#include "astgen/ir.h"
#include "astgen/irbuild.h"
#include "sched/sched.h"

typedef struct sj_binding {
  isl_id *id; /* borrowed: the AST keeps it alive */
  sj_ir_val val;
  long offset; /* the id's value is val + offset (copies of an unrolled loop) */
} sj_binding;

typedef struct sj_lower {
  const sj_model *m;
  sj_ir_module *mod;
  sj_error *err;
  int failed;
  int contract;         /* fast math on the GPU: a * b + c may become one fma */
  int approx_div;       /* fast math on the GPU: approximate f32 division */
  int unroll_innermost; /* CPU: innermost loops unrolled (see astgen/lower.c) */
  sj_irb b;             /* the function being built */
  sj_binding *binds;    /* loop iterators in scope, innermost last */
  int nbinds, capbinds;
  int free_ids_are_params; /* in a kernel: an unbound id is a host iterator passed in */
  isl_id **host_ids;       /* those ids, in parameter order */
  int nhost_ids;
  const sj_kernel *kernel; /* the GPU kernel being lowered, or NULL */
  sj_ir_val *staged_base;  /* by staged array of the kernel: its shared array, once used */
  /* under a `reduce` mark (GPU): its reductions, and for each its partial (a variable of
   * this thread) and the address of the element it accumulates into (a pointer variable, 0
   * until an instance ran); see astgen/lower_reduce.c */
  const sj_reduce *reduce;
  int *partial, *target;
  /* the statement instance being lowered */
  const sj_pstmt *stmt;
  isl_ast_expr *call; /* borrowed */
  int *local_var;     /* by local id: its variable, 0 until first assigned */
} sj_lower;

/* lower_expr.c */
sj_ir_type sj_lw_type(sj_type t);                               /* the IR type of a C type */
sj_ir_val sj_lw_iexpr(sj_lower *l, __isl_keep isl_ast_expr *e); /* an isl integer, S64 */
sj_ir_val sj_lw_icond(sj_lower *l, __isl_keep isl_ast_expr *e); /* an isl condition */
void sj_lw_stmt(sj_lower *l, __isl_keep isl_ast_expr *call);    /* one statement instance */
void sj_lw_copy(sj_lower *l, __isl_keep isl_ast_expr *call, const sj_copy *c); /* one copy */
sj_ir_val sj_lw_id(sj_lower *l, __isl_keep isl_id *id);         /* an isl id's value */
void sj_lw_bind(sj_lower *l, __isl_keep isl_id *id, sj_ir_val val, long offset);
void sj_lw_unbind(sj_lower *l);
void sj_lw_fail(sj_lower *l, const char *what);
/* How a reduction's terms combine, and its type (its element's). */
sj_ir_op sj_lw_red_op(sj_red_op op);
sj_ir_type sj_lw_red_type(const sj_reduction *r);

/* lower_reduce.c: reductions in parallel. start: at the `reduce` mark, the partials and
 * targets (the statements' lowering then accumulates into them); finish: at the end of the
 * kernel, every partial combined across the warp and into its element by one atomic per
 * warp. */
void sj_lw_reduce_start(sj_lower *l, const sj_reduce *red);
void sj_lw_reduce_finish(sj_lower *l);

#endif
