/* astgen/: isl AST generation from a schedule, and the one walk over the AST that every
 * printer (C for the CPU, PTX for the GPU) is a target of. */
#ifndef SJ_ASTGEN_H
#define SJ_ASTGEN_H

#include <isl/ast.h>
#include <isl/schedule.h>

#include "sched/sched.h"

/* The AST of schedule; NULL when isl fails. */
__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule);

/* What a for loop becomes. */
typedef enum sj_loop_kind {
  SJ_LOOP_SEQUENTIAL,
  SJ_LOOP_DISTRIBUTED, /* CPU: iterations spread over the worker threads */
  SJ_LOOP_MAPPED       /* GPU: a parallel member mapped to blocks and threads */
} sj_loop_kind;

/* Hooks of a printer. The walk decides the structure of a parallel program: loops under a
 * SJ_MARK_PARALLEL mark are distributed over threads; code outside distributed loops that
 * executes statements runs on one thread ("single") followed by a barrier; loops and ifs
 * that contain distributed loops run on every thread alike. */
typedef struct sj_walk_ops {
  /* member: the band member of a MAPPED loop. Returns how many times the walk visits the
   * body (a printer may unroll); before every visit after the first, for_copy is called. */
  int (*for_begin)(void *target, __isl_keep isl_ast_node *loop, sj_loop_kind kind, int member);
  void (*for_copy)(void *target, __isl_keep isl_ast_node *loop, int copy);
  void (*for_end)(void *target, __isl_keep isl_ast_node *loop, sj_loop_kind kind);
  void (*if_begin)(void *target, __isl_keep isl_ast_expr *cond);
  void (*if_else)(void *target);
  void (*if_end)(void *target);
  void (*stmt)(void *target, __isl_keep isl_ast_expr *call); /* S<id>(iterator values...) */
  void (*single_begin)(void *target);
  void (*single_end)(void *target);
  void (*barrier)(void *target);
  void (*kernel)(void *target, __isl_keep isl_ast_node *mark, const sj_kernel_map *k);
} sj_walk_ops;

/* CPU: the SPMD program of all threads. */
void sj_ast_walk(__isl_keep isl_ast_node *root, const sj_walk_ops *ops, void *target);
/* GPU host: everything outside kernels, in order; each kernel mark is one kernel hook. */
void sj_ast_walk_host(__isl_keep isl_ast_node *root, const sj_walk_ops *ops, void *target);
/* GPU kernel: the subtree below a kernel mark, the loops of its parallel band mapped. */
void sj_ast_walk_kernel(__isl_keep isl_ast_node *mark, const sj_walk_ops *ops, void *target);
/* The schedule depths d of the host loop iterators c<d> a kernel's code uses, ascending:
 * what the host passes to each launch. Returns the count (at most max). */
int sj_ast_kernel_host_iters(__isl_keep isl_ast_node *mark, int *depths, int max);
/* The kernel map of a kernel mark, NULL for other nodes. */
const sj_kernel_map *sj_ast_kernel_map(__isl_keep isl_ast_node *node);

/* The schedule depth d of a loop iterator c<d> (an id expression) and of a for node's. */
int sj_ast_id_depth(__isl_keep isl_ast_expr *id);
int sj_ast_loop_depth(__isl_keep isl_ast_node *loop);
/* Whether expression e uses the loop iterator c<depth>. */
int sj_ast_mentions(__isl_keep isl_ast_expr *e, int depth);

/* The statement index of a call expression S<id>(...). */
int sj_ast_call_stmt(__isl_keep isl_ast_expr *call);

#endif
