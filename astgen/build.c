/* isl AST generation. Shape parameters are constants already, so the build needs no
 * context; the block and thread ids are introduced by the kernels' context nodes, which
 * keeps the guards on them inside the kernels. isl names the loop iterators c0, c1, ...
 * A per-step kernel's AST is built without isl's generator where astgen/step_ast.c can. */
#include "astgen/astgen.h"
#include "astgen/live_ast.h"

#include <isl/ast_build.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>

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

__isl_give isl_ast_node *sj_ast_generate_isl(__isl_keep isl_schedule *schedule) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  isl_ast_build *build = isl_ast_build_alloc(ctx);
  sj_guard_build gb = {sj_ast_local(schedule), 0};
  if (gb.local) build = sj_ast_build_guards(build, &gb);
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
