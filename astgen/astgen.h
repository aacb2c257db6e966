/* astgen/: isl AST generation from a schedule tree, and its lowering to the kernel IR
 * (astgen/ir.h) that the C and PTX targets print. */
#ifndef SJ_ASTGEN_H
#define SJ_ASTGEN_H

#include <isl/ast.h>
#include <isl/schedule.h>

#include "astgen/ir.h"
#include "sched/sched.h"

/* Parameters of the code below an AST node and their values there (values[i] NULL: ids[i] is
 * none of them). SJ_ID_FIRST_EXPRS: the annotation of a kernel mark whose grid starts at tiles
 * that are functions of its launch (sched.h, sj_kernel.first), values[d] on the host's
 * iterators, ids[d] the kernel's parameter sj_first_ids[d]. SJ_ID_ORIGIN_EXPRS: a mark above
 * a copy's loops kept to the array (sj_copy.clamp), ids[d] sj_origin_ids[d]. */
enum { SJ_PARAM_EXPRS_MAX = 4 };
typedef struct sj_param_exprs {
  sj_id_kind tag;
  isl_ast_expr *values[SJ_PARAM_EXPRS_MAX];
  isl_id *ids[SJ_PARAM_EXPRS_MAX];
} sj_param_exprs;

/* The integer v as an expression. */
__isl_give isl_ast_expr *sj_ast_int(isl_ctx *ctx, long v);
/* offset plus the origin o of a copy (sj_copy.origin[d]: affine in the ncoords arguments of
 * call after its callee, L, S0, ..). */
__isl_give isl_ast_expr *sj_ast_plus_origin(__isl_take isl_ast_expr *offset, const long *o,
                                            int ncoords, __isl_keep isl_ast_expr *call);

/* The AST of schedule, with the band options the tree carries; NULL when isl fails. */
__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule);
/* The AST by isl's generator alone. */
__isl_give isl_ast_node *sj_ast_generate_isl(__isl_keep isl_schedule *schedule);
/* The AST of a per-step GPU kernel's tree (sched/baseline.c) built directly, the same as
 * isl's; NULL where the tree is not of that simple form (astgen/step_ast.c). */
__isl_give isl_ast_node *sj_ast_step(__isl_keep isl_schedule *schedule);

/* The CPU kernel: one SPMD function (see astgen/lower.c). unroll: innermost loops unrolled
 * by hand for TinyCC, which keeps no value in a register; a compiler that vectorizes wants
 * them plain. A jit_status; *out on success. */
int sj_lower_cpu(const sj_model *m, __isl_keep isl_ast_node *ast, int unroll, sj_ir_module **out,
                 sj_error *err);
/* The GPU host function and one function per kernel mark. fast_math: contraction into fma
 * and approximate f32 division. A jit_status; *out on success. */
int sj_lower_gpu(const sj_model *m, __isl_keep isl_ast_node *ast, int fast_math, sj_ir_module **out,
                 sj_error *err);

#endif
