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

/* What the callbacks share: the guards' state; the host's launch band, the outermost one
 * ({ S[..] -> [L] }), NULL where the schedule has none; and the launch of the kernel being
 * generated where isl has dropped it from the build's schedule space (NULL otherwise): isl
 * drops a schedule dimension whose value is fixed there (the instances of one launch that it
 * generates apart from the others' where their ranges do not meet) and knows its value only
 * at the leaves. */
typedef struct build_user {
  sj_guard_build guards;
  isl_union_map *launch;
  int find_launch;
  isl_val *fixed_launch;
} build_user;

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

/* The statement instances that reach node: the domain through the filters above it (isl's
 * own stops at the extensions that add the copies). */
static __isl_give isl_union_set *reaching(__isl_keep isl_schedule_node *node) {
  isl_schedule_node *up = isl_schedule_node_copy(node);
  isl_union_set *dom = NULL;
  while (up && isl_schedule_node_has_parent(up)) {
    if (isl_schedule_node_get_type(up) == isl_schedule_node_filter)
      dom = dom ? isl_union_set_intersect(dom, isl_schedule_node_filter_get_filter(up))
                : isl_schedule_node_filter_get_filter(up);
    up = isl_schedule_node_parent(up);
  }
  isl_union_set *all = up ? isl_schedule_node_domain_get_domain(up) : NULL;
  isl_schedule_node_free(up);
  return dom ? isl_union_set_intersect(all, dom) : all;
}

/* The launches of instances (taken) as one set through the launch band's schedule, or NULL
 * where they lie in none or several spaces (none: a copy or a barrier, outside the band). */
static __isl_give isl_set *launches_of(__isl_take isl_union_set *instances,
                                       __isl_keep isl_union_map *launch) {
  isl_union_set *at = isl_union_set_apply(instances, isl_union_map_copy(launch));
  if (isl_union_set_n_set(at) != 1) {
    isl_union_set_free(at);
    return NULL;
  }
  return isl_set_from_union_set(at);
}

/* A guard above the full tiles' version (sched/full_tiles.c): the launches and blocks where it
 * has instances, exactly. A thread runs the full tiles' version where isl's guards let it reach
 * the version's mark, and any tile's only where not; isl hoists above the mark only the hull of
 * the full tiles of a launch where they differ along time (the skewed tiles of several bands
 * share a launch, full along y in each at other blocks), and the rest of the test below it: a
 * block that reached the mark and ran none of its steps ran no step at all (jacobi2d_polybench
 * T=2 N=23 at h=2 w=2x2, with the tiles cut by the run's end counted as full). */
static __isl_give isl_schedule_node *guard_full(__isl_take isl_schedule_node *node, void *user) {
  isl_union_map *launch = user; /* the only band above */
  if (!launch || isl_schedule_node_get_type(node) != isl_schedule_node_mark ||
      isl_schedule_node_get_schedule_depth(node) != 1)
    return node;
  isl_id *mark = isl_schedule_node_mark_get_id(node);
  const sj_mapped_id *v = mark ? isl_id_get_user(mark) : NULL;
  isl_id_free(mark);
  if (!v || v->tag != SJ_ID_VERSION || v->dim != 1) return node;
  isl_set *at = launches_of(reaching(node), launch);
  if (!at) return node; /* none: isl generates nothing below */
  return isl_schedule_node_insert_guard(node, isl_set_coalesce(at));
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

static void param_exprs_free(void *user) {
  sj_param_exprs *e = user;
  for (int i = 0; i < SJ_PARAM_EXPRS_MAX; i++) {
    isl_ast_expr_free(e->values[i]);
    isl_id_free(e->ids[i]);
  }
  free(e);
}

/* An id that owns a new sj_param_exprs of tag, none of its values set (*e), or NULL. */
static __isl_give isl_id *param_exprs(isl_ctx *ctx, const char *name, sj_id_kind tag,
                                      sj_param_exprs **e) {
  *e = calloc(1, sizeof **e);
  isl_id *id = *e ? sj_id_owning(ctx, name, *e, param_exprs_free) : NULL;
  if (id) (*e)->tag = tag;
  return id;
}

__isl_give isl_ast_expr *sj_ast_int(isl_ctx *ctx, long v) {
  return isl_ast_expr_from_val(isl_val_int_from_si(ctx, v));
}

__isl_give isl_ast_expr *sj_ast_plus_origin(__isl_take isl_ast_expr *offset, const long *o,
                                            int ncoords, __isl_keep isl_ast_expr *call) {
  isl_ctx *ctx = isl_ast_expr_get_ctx(offset);
  if (o[0]) offset = isl_ast_expr_add(offset, sj_ast_int(ctx, o[0]));
  for (int k = 0; k < ncoords; k++)
    if (o[1 + k])
      offset = isl_ast_expr_add(offset, isl_ast_expr_mul(sj_ast_int(ctx, o[1 + k]),
                                                         isl_ast_expr_op_get_arg(call, 1 + k)));
  return offset;
}

/* The loops of a copy whose elements are apart from its instances (sched/sched.h, sj_copy), in
 * place of node, the call of its instance; isl builds them from the elements' own schedule, with
 * iterators of their own (the instance's arguments are in the kernel's). Where they keep to the
 * array (c->clamp), below a mark with the values of the origins that bound them. */
static __isl_give isl_ast_node *copy_elements(__isl_take isl_ast_node *node, const sj_copy *c) {
  static const char *const names[] = {"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"};
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  isl_id_list *iters = isl_id_list_alloc(ctx, 8);
  for (int i = 0; i < 8; i++) iters = isl_id_list_add(iters, isl_id_alloc(ctx, names[i], NULL));
  isl_ast_expr *tile = isl_ast_node_user_get_expr(node);
  isl_ast_node_free(node);
  isl_schedule *elements = isl_schedule_copy(c->elements);
  if (c->clamp) {
    sj_param_exprs *e;
    isl_id *id = param_exprs(ctx, "origins", SJ_ID_ORIGIN_EXPRS, &e);
    int ncoords = (int)isl_ast_expr_op_get_n_arg(tile) - 1; /* L, S0, .. */
    for (int d = 0; id && d < SJ_STAGE_MAX_RANK; d++) {
      if (!(c->clamp >> d & 1)) continue;
      e->ids[d] = sj_origin_id(ctx, d);
      e->values[d] = sj_ast_plus_origin(sj_ast_int(ctx, 0), c->origin[d], ncoords, tile);
    }
    isl_schedule_node *top = isl_schedule_node_child(isl_schedule_get_root(elements), 0);
    isl_schedule_free(elements);
    top = isl_schedule_node_insert_mark(top, id);
    elements = isl_schedule_node_get_schedule(top);
    isl_schedule_node_free(top);
  }
  isl_ast_build *build = isl_ast_build_set_iterators(isl_ast_build_alloc(ctx), iters);
  build = isl_ast_build_set_at_each_domain(build, at_element, tile);
  node = isl_ast_build_node_from_schedule(build, elements);
  isl_ast_build_free(build);
  isl_ast_expr_free(tile);
  return node;
}

/* The launch of the instances build executes where a single one; NULL where not, or isl
 * fails. */
static __isl_give isl_val *fixed_launch(__isl_keep isl_ast_build *build, const build_user *u) {
  isl_set *at = launches_of(isl_union_map_domain(isl_ast_build_get_schedule(build)), u->launch);
  if (!at) return NULL;
  isl_val *l = isl_set_plain_get_val_if_fixed(at, isl_dim_set, 0);
  isl_set_free(at);
  return l && !isl_val_is_int(l) ? isl_val_free(l) : l;
}

/* isl's at_each_domain callback (user: build_user): a copy's loops where they are apart, the
 * write-through guards where there are some; the launch where isl has dropped it. */
static __isl_give isl_ast_node *at_domain(__isl_take isl_ast_node *node,
                                          __isl_keep isl_ast_build *build, void *user) {
  build_user *u = user;
  sj_guard_build *gb = &u->guards;
  if (u->find_launch && !u->fixed_launch) u->fixed_launch = fixed_launch(build, u);
  isl_ast_expr *call = isl_ast_node_user_get_expr(node);
  isl_ast_expr *fn = call ? isl_ast_expr_op_get_arg(call, 0) : NULL;
  isl_id *id = fn ? isl_ast_expr_get_id(fn) : NULL;
  const sj_id_kind *tag = id ? isl_id_get_user(id) : NULL;
  const sj_copy *c = tag && *tag == SJ_ID_COPY ? (const sj_copy *)tag : NULL;
  int apart = c && c->elements;
  isl_id_free(id);
  isl_ast_expr_free(fn);
  isl_ast_expr_free(call);
  if (apart) return copy_elements(node, c);
  return gb->local ? sj_ast_guard_stores(node, build, gb) : node;
}

/* The kernel of mark where its grid starts at tiles that are functions of the launch, else NULL. */
static const sj_kernel *kernel_with_first(__isl_keep isl_id *mark) {
  const sj_id_kind *tag = mark ? isl_id_get_user(mark) : NULL; /* the tag first: any mark's */
  const sj_kernel *k = tag && *tag == SJ_ID_KERNEL ? (const sj_kernel *)tag : NULL;
  return k && (k->first[0] || k->first[1] || k->first[2]) ? k : NULL;
}

static isl_stat enter_mark(__isl_keep isl_id *mark, __isl_keep isl_ast_build *build, void *user) {
  build_user *u = user;
  sj_ast_guard_mark(&u->guards, mark, 1);
  if (!kernel_with_first(mark)) return isl_stat_ok;
  isl_space *outer = isl_ast_build_get_schedule_space(build);
  isl_size n = isl_space_dim(outer, isl_dim_set);
  isl_space_free(outer);
  u->find_launch = n == 0 && u->launch;
  u->fixed_launch = isl_val_free(u->fixed_launch);
  return n < 0 ? isl_stat_error : isl_stat_ok;
}

/* The launch at build as a function of the build's schedule space: its first dimension, or
 * the launch isl has dropped from it. NULL when isl fails or neither is known. */
static __isl_give isl_multi_aff *launch_at(__isl_keep isl_ast_build *build, const build_user *u) {
  isl_space *outer = isl_ast_build_get_schedule_space(build);
  isl_size n = isl_space_dim(outer, isl_dim_set);
  isl_multi_aff *at = isl_multi_aff_zero(isl_space_map_from_domain_and_range(
      isl_space_copy(outer), isl_space_set_alloc(isl_space_get_ctx(outer), 0, 1)));
  if (n > 0) {
    isl_aff *l = isl_aff_var_on_domain(isl_local_space_from_space(outer), isl_dim_set, 0);
    return isl_multi_aff_set_aff(at, 0, l);
  }
  isl_space_free(outer);
  if (n < 0 || !u->fixed_launch) return isl_multi_aff_free(at);
  isl_aff *l =
      isl_aff_add_constant_val(isl_multi_aff_get_aff(at, 0), isl_val_copy(u->fixed_launch));
  return isl_multi_aff_set_aff(at, 0, l);
}

/* The first tile of kernel k's grid along d at the launch of build, as an expression of the
 * host's iterators. */
static __isl_give isl_ast_expr *first_at(__isl_keep isl_ast_build *build, const build_user *u,
                                         const sj_kernel *k, int d) {
  isl_multi_aff *at = launch_at(build, u);
  if (!at) return NULL;
  at = isl_multi_aff_align_params(at, isl_aff_get_space(k->first[d]));
  isl_aff *first = isl_aff_pullback_multi_aff(isl_aff_copy(k->first[d]), at);
  return isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_from_aff(first));
}

/* isl's after_each_mark callback: a kernel whose grid starts at tiles that are functions of
 * the launch annotated with their values (sj_param_exprs), which the host passes it. */
static __isl_give isl_ast_node *leave_mark(__isl_take isl_ast_node *node,
                                           __isl_keep isl_ast_build *build, void *user) {
  isl_id *mark = isl_ast_node_mark_get_id(node);
  build_user *u = user;
  sj_ast_guard_mark(&u->guards, mark, 0);
  const sj_kernel *k = kernel_with_first(mark);
  isl_id_free(mark);
  if (!k) return node;
  isl_ctx *ctx = isl_ast_node_get_ctx(node);
  sj_param_exprs *e;
  isl_id *id = param_exprs(ctx, "first", SJ_ID_FIRST_EXPRS, &e);
  if (!id) return isl_ast_node_free(node);
  for (int d = 0; d < 3; d++) {
    if (!k->first[d]) continue;
    e->ids[d] = sj_first_id(ctx, d);
    if (!(e->values[d] = first_at(build, u, k, d))) {
      isl_id_free(id);
      return isl_ast_node_free(node);
    }
  }
  return isl_ast_node_set_annotation(node, id);
}

/* The partial schedule of schedule's outermost band if it is the root's child, else NULL. */
static __isl_give isl_union_map *launch_band(__isl_keep isl_schedule *schedule) {
  isl_schedule_node *top = isl_schedule_node_child(isl_schedule_get_root(schedule), 0);
  isl_union_map *launch = isl_schedule_node_get_type(top) == isl_schedule_node_band
                              ? isl_schedule_node_band_get_partial_schedule_union_map(top)
                              : NULL;
  isl_schedule_node_free(top);
  return launch;
}

__isl_give isl_ast_node *sj_ast_generate_isl(__isl_keep isl_schedule *schedule) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  isl_ast_build *build = isl_ast_build_alloc(ctx);
  build_user u = {{sj_ast_local(schedule), 0}, launch_band(schedule), 0, NULL};
  build = isl_ast_build_set_before_each_mark(build, enter_mark, &u);
  build = isl_ast_build_set_after_each_mark(build, leave_mark, &u);
  build = isl_ast_build_set_at_each_domain(build, at_domain, &u);
  isl_schedule *anchored =
      isl_schedule_map_schedule_node_bottom_up(isl_schedule_copy(schedule), guard_full, u.launch);
  anchored = isl_schedule_map_schedule_node_bottom_up(anchored, anchor_leaf, NULL);
  isl_ast_node *tree = isl_ast_build_node_from_schedule(build, anchored);
  isl_ast_build_free(build);
  isl_union_set_free(u.guards.local);
  isl_union_map_free(u.launch);
  isl_val_free(u.fixed_launch);
  return tree;
}

__isl_give isl_ast_node *sj_ast_generate(__isl_keep isl_schedule *schedule) {
  isl_ast_node *tree = sj_ast_step(schedule);
  return tree ? tree : sj_ast_generate_isl(schedule);
}
