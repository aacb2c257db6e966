/* Guards on the write-through of time-tiled kernels' staged results (astgen/live_ast.c). */
#ifndef SJ_LIVE_AST_H
#define SJ_LIVE_AST_H

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/schedule.h>

#include "sched/sched.h"

/* The annotation of a statement's AST node: its instance's staged results are written
 * through to global memory where store holds (on the iterators and ids in scope), and stay in
 * its tile elsewhere; store NULL: nowhere. */
typedef struct sj_store_guard {
  sj_id_kind tag; /* SJ_ID_STORE_GUARD */
  isl_ast_expr *store;
} sj_store_guard;

/* The instances a schedule's `live_out` marks hold, or NULL where it has none. */
__isl_give isl_union_set *sj_ast_local(__isl_keep isl_schedule *schedule);
/* What the callbacks of isl's AST generation share: the instances whose results stay in their
 * tiles, and how deep in the full tiles' code the generator is (the guards go there only:
 * elsewhere, cut by the instances, their conditions cost isl far more). */
typedef struct sj_guard_build {
  isl_union_set *local;
  int in_full;
} sj_guard_build;
/* Counts the full tiles' version marks isl's generator enters and leaves (gb->in_full). */
void sj_ast_guard_mark(sj_guard_build *gb, __isl_keep isl_id *mark, int entering);
/* isl's at_each_domain callback (user: the instances whose results stay in their tiles):
 * annotates node where some of its instances are among them. */
__isl_give isl_ast_node *sj_ast_guard_stores(__isl_take isl_ast_node *node,
                                             __isl_keep isl_ast_build *build, void *user);

#endif
