/* astgen/: isl AST generation from a schedule, and the one walk over the AST that every
 * printer (C for the CPU, PTX for the GPU) is a target of. */
#ifndef SJ_ASTGEN_H
#define SJ_ASTGEN_H

#include <isl/ast.h>
#include <isl/schedule.h>

/* The AST of schedule; NULL when isl fails. */
__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule);

/* Hooks of a printer. The walk decides the structure of a parallel program: loops under a
 * SJ_MARK_PARALLEL mark are distributed over threads; code outside distributed loops that
 * executes statements runs on one thread ("single") followed by a barrier; loops and ifs
 * that contain distributed loops run on every thread alike. */
typedef struct sj_walk_ops {
  void (*for_begin)(void *target, __isl_keep isl_ast_node *loop, int distributed);
  void (*for_end)(void *target, __isl_keep isl_ast_node *loop, int distributed);
  void (*if_begin)(void *target, __isl_keep isl_ast_expr *cond);
  void (*if_else)(void *target);
  void (*if_end)(void *target);
  void (*stmt)(void *target, __isl_keep isl_ast_expr *call); /* S<id>(iterator values...) */
  void (*single_begin)(void *target);
  void (*single_end)(void *target);
  void (*barrier)(void *target);
} sj_walk_ops;

void sj_ast_walk(__isl_keep isl_ast_node *root, const sj_walk_ops *ops, void *target);

/* The statement index of a call expression S<id>(...). */
int sj_ast_call_stmt(__isl_keep isl_ast_expr *call);

#endif
