/* isl AST generation. Shape parameters are constants already, so the build needs no
 * context; the block and thread ids are introduced by the kernels' context nodes, which
 * keeps the guards on them inside the kernels. isl names the loop iterators c0, c1, ...
 * A per-step kernel's AST is built without isl's generator where astgen/step_ast.c can. */
#include "astgen/astgen.h"
#include "astgen/live_ast.h"

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>

#include <stdlib.h>

/* An unconstrained context node above every leaf. isl (0.25) rewrites a band member whose
 * statements are strided with different offsets (folded time: 3t, 3t + 1, 3t + 2) into a
 * shifted loop, with each statement's offset taken relative to one reference statement; a
 * statement that never shares an outer iteration with the reference (a boundary statement
 * in the edge tiles only) gets offset 0, and the loop then runs it out of order (a CPU
 * time-tiled kernel with boundary nests computed wrong values). isl skips that rewrite below
 * an anchored node, which a context node is; the constraint-free one changes nothing else. */
static __isl_give isl_schedule_node *anchor_leaf(__isl_take isl_schedule_node *node, void *user) {
  (void)user;
  if (isl_schedule_node_get_type(node) != isl_schedule_node_leaf) return node;
  isl_size depth = isl_schedule_node_get_schedule_depth(node);
  if (depth < 0) return isl_schedule_node_free(node);
  isl_space *outer = isl_space_set_alloc(isl_schedule_node_get_ctx(node), 0, (unsigned)depth);
  return isl_schedule_node_insert_context(node, isl_set_universe(outer));
}

/* A call of a copy's elements (copy(a..)) as a call of the copy's instance (user: its call,
 * copy(L, S..)) at that element: copy(L, S.., a..). */
static __isl_give isl_ast_node *at_element(__isl_take isl_ast_node *node,
                                           __isl_keep isl_ast_build *build, void *user) {
  (void)build;
  isl_ast_expr *tile = user, *element = isl_ast_node_user_get_expr(node);
  isl_ast_node_free(node);
  int ntile = (int)isl_ast_expr_op_get_n_arg(tile), nel = (int)isl_ast_expr_op_get_n_arg(element);
  isl_ast_expr_list *args = isl_ast_expr_list_alloc(isl_ast_expr_get_ctx(tile), ntile + nel - 2);
  for (int i = 1; i < ntile; i++)
    args = isl_ast_expr_list_add(args, isl_ast_expr_op_get_arg(tile, i));
  for (int i = 1; i < nel; i++)
    args = isl_ast_expr_list_add(args, isl_ast_expr_op_get_arg(element, i));
  isl_ast_expr_free(element);
  return isl_ast_node_alloc_user(isl_ast_expr_call(isl_ast_expr_op_get_arg(tile, 0), args));
}

/* The loops of a copy whose elements are apart from its instances (sched/sched.h, sj_copy), in
 * place of node, the call of its instance; isl builds them from the elements' own schedule, with
 * iterators of their own (the instance's arguments are in the kernel's). */
static __isl_give isl_ast_node *copy_elements(__isl_take isl_ast_node *node, const sj_copy *c) {
  static const char *const names[] = {"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"};
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  isl_id_list *iters = isl_id_list_alloc(ctx, 8);
  for (int i = 0; i < 8; i++) iters = isl_id_list_add(iters, isl_id_alloc(ctx, names[i], NULL));
  isl_ast_expr *tile = isl_ast_node_user_get_expr(node);
  isl_ast_node_free(node);
  isl_ast_build *build = isl_ast_build_set_iterators(isl_ast_build_alloc(ctx), iters);
  build = isl_ast_build_set_at_each_domain(build, at_element, tile);
  node = isl_ast_build_node_from_schedule(build, isl_schedule_copy(c->elements));
  isl_ast_build_free(build);
  isl_ast_expr_free(tile);
  return node;
}

/* isl's at_each_domain callback (user: the guards' sj_guard_build): a copy's loops where they
 * are apart, the write-through guards where there are some. */
static __isl_give isl_ast_node *at_domain(__isl_take isl_ast_node *node,
                                          __isl_keep isl_ast_build *build, void *user) {
  sj_guard_build *gb = user;
  isl_ast_expr *call = isl_ast_node_user_get_expr(node);
  isl_ast_expr *fn = call ? isl_ast_expr_op_get_arg(call, 0) : NULL;
  isl_id *id = fn ? isl_ast_expr_get_id(fn) : NULL;
  const sj_copy *c = id ? isl_id_get_user(id) : NULL;
  int apart = c && c->tag == SJ_ID_COPY && c->elements;
  isl_id_free(id);
  isl_ast_expr_free(fn);
  isl_ast_expr_free(call);
  if (apart) return copy_elements(node, c);
  return gb->local ? sj_ast_guard_stores(node, build, gb) : node;
}

static isl_stat enter_mark(__isl_keep isl_id *mark, __isl_keep isl_ast_build *build, void *user) {
  (void)build;
  sj_ast_guard_mark(user, mark, 1);
  return isl_stat_ok;
}

static void first_exprs_free(void *user) {
  sj_first_exprs *e = user;
  for (int d = 0; d < 3; d++) {
    isl_ast_expr_free(e->first[d]);
    isl_id_free(e->ids[d]);
  }
  free(e);
}

/* The first tile of kernel k's grid along d at the launch of build (the outermost schedule
 * dimension), as an expression of the host's iterators. */
static __isl_give isl_ast_expr *first_at(__isl_keep isl_ast_build *build, const sj_kernel *k,
                                         int d) {
  isl_space *outer = isl_ast_build_get_schedule_space(build);
  isl_aff *launch =
      isl_aff_var_on_domain(isl_local_space_from_space(isl_space_copy(outer)), isl_dim_set, 0);
  isl_multi_aff *at = isl_multi_aff_zero(
      isl_space_map_from_domain_and_range(outer, isl_aff_get_domain_space(k->first[d])));
  at = isl_multi_aff_set_aff(at, 0, launch);
  isl_aff *first = isl_aff_pullback_multi_aff(isl_aff_copy(k->first[d]), at);
  return isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_from_aff(first));
}

/* isl's after_each_mark callback: a kernel whose grid starts at tiles that are functions of
 * the launch annotated with their values (sj_first_exprs), which the host passes it. */
static __isl_give isl_ast_node *leave_mark(__isl_take isl_ast_node *node,
                                           __isl_keep isl_ast_build *build, void *user) {
  isl_id *mark = isl_ast_node_mark_get_id(node);
  sj_ast_guard_mark(user, mark, 0);
  const sj_kernel *k = mark ? isl_id_get_user(mark) : NULL;
  isl_id_free(mark);
  if (!k || k->tag != SJ_ID_KERNEL || !(k->first[0] || k->first[1] || k->first[2])) return node;
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  sj_first_exprs *e = calloc(1, sizeof *e);
  isl_id *id = e ? sj_id_owning(ctx, "first", e, first_exprs_free) : NULL;
  if (!id) return isl_ast_node_free(node);
  e->tag = SJ_ID_FIRST_EXPRS;
  for (int d = 0; d < 3; d++) {
    if (!k->first[d]) continue;
    e->ids[d] = sj_first_id(ctx, d);
    if (!(e->first[d] = first_at(build, k, d))) {
      isl_id_free(id);
      return isl_ast_node_free(node);
    }
  }
  return isl_ast_node_set_annotation(node, id);
}

__isl_give isl_ast_node *sj_ast_generate_isl(__isl_keep isl_schedule *schedule) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  isl_ast_build *build = isl_ast_build_alloc(ctx);
  sj_guard_build gb = {sj_ast_local(schedule), 0};
  build = isl_ast_build_set_before_each_mark(build, enter_mark, &gb);
  build = isl_ast_build_set_after_each_mark(build, leave_mark, &gb);
  build = isl_ast_build_set_at_each_domain(build, at_domain, &gb);
  isl_schedule *anchored =
      isl_schedule_map_schedule_node_bottom_up(isl_schedule_copy(schedule), anchor_leaf, NULL);
  isl_ast_node *tree = isl_ast_build_node_from_schedule(build, anchored);
  isl_ast_build_free(build);
  isl_union_set_free(gb.local);
  return tree;
}

__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule) {
  isl_ast_node *tree = sj_ast_step(schedule);
  return tree ? tree : sj_ast_generate_isl(schedule);
}
