/* isl AST generation. Shape parameters are constants already, so the build needs no
 * context; the block and thread ids are introduced by the kernels' context nodes, which
 * keeps the guards on them inside the kernels. isl names the loop iterators c0, c1, ... */
#include "astgen/astgen.h"

#include <isl/ast_build.h>
#include <isl/set.h>
#include <isl/options.h>
#include <stdlib.h>

__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  if (getenv("SJ_O1")) isl_options_set_ast_build_exploit_nested_bounds(ctx, 0);
  if (getenv("SJ_O2")) isl_options_set_ast_build_detect_min_max(ctx, 0);
  if (getenv("SJ_O3")) isl_options_set_ast_build_separation_bounds(ctx, ISL_AST_BUILD_SEPARATION_BOUNDS_IMPLICIT);
  if (getenv("SJ_O4")) isl_options_set_ast_build_group_coscheduled(ctx, 1);
  if (getenv("SJ_O5")) isl_options_set_ast_build_scale_strides(ctx, 0);
  if (getenv("SJ_O6")) isl_options_set_ast_build_allow_else(ctx, 0);
  isl_ast_build *build = isl_ast_build_alloc(ctx);
  isl_ast_node *tree = isl_ast_build_node_from_schedule(build, isl_schedule_copy(schedule));
  isl_ast_build_free(build);
  return tree;
}
