/* isl AST generation. Shape parameters are constants already, so the build needs no
 * context; the block and thread ids are introduced by the kernels' context nodes, which
 * keeps the guards on them inside the kernels. isl names the loop iterators c0, c1, ...
 * A per-step kernel's AST is built without isl's generator where astgen/step_ast.c can. */
#include "astgen/astgen.h"
#include "astgen/live_ast.h"

#include <isl/ast_build.h>
#include <isl/set.h>

__isl_give isl_ast_node *sj_ast_generate_isl(__isl_keep isl_schedule *schedule) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  isl_ast_build *build = isl_ast_build_alloc(ctx);
  sj_guard_build gb = {sj_ast_local(schedule), 0};
  if (gb.local) build = sj_ast_build_guards(build, &gb);
  isl_ast_node *tree = isl_ast_build_node_from_schedule(build, isl_schedule_copy(schedule));
  isl_ast_build_free(build);
  isl_union_set_free(gb.local);
  return tree;
}

__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule) {
  isl_ast_node *tree = sj_ast_step(schedule);
  return tree ? tree : sj_ast_generate_isl(schedule);
}
