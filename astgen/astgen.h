/* astgen/: isl AST generation from a schedule tree, and its lowering to the kernel IR
 * (astgen/ir.h) that the C and PTX targets print. */
#ifndef SJ_ASTGEN_H
#define SJ_ASTGEN_H

#include <isl/ast.h>
#include <isl/schedule.h>

#include "astgen/ir.h"
#include "sched/sched.h"

/* The annotation of a kernel mark's AST node whose grid starts at tiles that are functions of its
 * launch (sched.h, sj_kernel.first): their values there, on the host's iterators; ids[d] the
 * kernel's parameter. */
typedef struct sj_first_exprs {
  sj_id_kind tag; /* SJ_ID_FIRST_EXPRS */
  isl_ast_expr *first[3];
  isl_id *ids[3];
} sj_first_exprs;

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
