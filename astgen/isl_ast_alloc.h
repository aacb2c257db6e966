/* isl's AST node constructors. isl 0.25 declares them only in its private isl_ast_private.h,
 * yet exports them from libisl (isl's own AST generator and PPCG build nodes with them). The
 * per-step fast path (astgen/step_ast.c) builds the AST isl would with them; CMake checks
 * that the isl it links has every one (SJ_HAVE_ISL_AST_ALLOC), else isl builds every AST.
 * The signatures are those of isl 0.25's isl_ast_private.h. */
#ifndef SJ_ISL_AST_ALLOC_H
#define SJ_ISL_AST_ALLOC_H

#include <isl/ast.h>

__isl_give isl_ast_node *isl_ast_node_alloc_if(__isl_take isl_ast_expr *guard);
__isl_give isl_ast_node *isl_ast_node_if_set_then(__isl_take isl_ast_node *node,
                                                  __isl_take isl_ast_node *child);
__isl_give isl_ast_node *isl_ast_node_alloc_mark(__isl_take isl_id *id,
                                                 __isl_take isl_ast_node *node);
__isl_give isl_ast_node *isl_ast_node_alloc_block(__isl_take isl_ast_node_list *list);
__isl_give isl_ast_node *isl_ast_node_for_set_body(__isl_take isl_ast_node *node,
                                                   __isl_take isl_ast_node *body);

#endif
