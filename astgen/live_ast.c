/* Guards on the write-through of time-tiled kernels (sched/liveout.c): in the full tiles' code
 * (below a `version` mark of dim 1) the AST node of each statement gets an annotation
 * (sj_store_guard) with the condition, on the loop iterators and ids around it, under which its
 * instance's results leave its tile. isl states where they stay (the `live_out` mark's set)
 * from the build's own knowledge of the node's domain, gisted: in a full tile a few bounds on
 * the point's place in the tile; the annotation holds its negation (comparisons inverted, and
 * and or swapped), a short condition the lowering turns into a predicate on the store, or
 * decides per unrolled copy (lower_expr.c). Nodes none of whose instances stay get no
 * annotation; those all of whose instances stay get store NULL: never stored. Partial tiles
 * write through: isl's conditions there, cut by the instances, cost more compile time and
 * instructions than their stores. */
#include "astgen/live_ast.h"

#include <stdlib.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

static isl_bool find_live(__isl_keep isl_schedule_node *node, void *user) {
  isl_union_set **local = user;
  if (*local) return isl_bool_false;
  if (isl_schedule_node_get_type(node) != isl_schedule_node_mark) return isl_bool_true;
  isl_id *id = isl_schedule_node_mark_get_id(node);
  const sj_id_kind *tag = id ? isl_id_get_user(id) : NULL; /* the tag first: any mark's */
  if (tag && *tag == SJ_ID_LIVE) *local = isl_union_set_copy(((const sj_live *)tag)->local);
  isl_id_free(id);
  return isl_bool_true;
}

/* Every `live_out` mark of a schedule holds the same set (sched/hybrid.c): the first. */
__isl_give isl_union_set *sj_ast_local(__isl_keep isl_schedule *schedule) {
  isl_union_set *local = NULL;
  if (isl_schedule_foreach_schedule_node_top_down(schedule, find_live, &local) < 0)
    return isl_union_set_free(local);
  return local;
}

/* The negation of condition e (isl's: comparisons joined by and and or), or NULL. */
static __isl_give isl_ast_expr *negate(__isl_keep isl_ast_expr *e) {
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op || isl_ast_expr_op_get_n_arg(e) != 2) return NULL;
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0), *b = isl_ast_expr_op_get_arg(e, 1), *res = NULL;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else: {
    int conj = isl_ast_expr_op_get_type(e) == isl_ast_expr_op_and ||
               isl_ast_expr_op_get_type(e) == isl_ast_expr_op_and_then;
    isl_ast_expr *na = negate(a), *nb = negate(b);
    if (na && nb)
      res = conj ? isl_ast_expr_or(na, nb) : isl_ast_expr_and(na, nb);
    else
      isl_ast_expr_free(na), isl_ast_expr_free(nb);
    break;
  }
  case isl_ast_expr_op_le:
    return isl_ast_expr_gt(a, b);
  case isl_ast_expr_op_lt:
    return isl_ast_expr_ge(a, b);
  case isl_ast_expr_op_ge:
    return isl_ast_expr_lt(a, b);
  case isl_ast_expr_op_gt:
    return isl_ast_expr_le(a, b);
  case isl_ast_expr_op_eq:
    return isl_ast_expr_or(isl_ast_expr_lt(isl_ast_expr_copy(a), isl_ast_expr_copy(b)),
                           isl_ast_expr_gt(a, b));
  default:
    break;
  }
  isl_ast_expr_free(a);
  isl_ast_expr_free(b);
  return res;
}

static void guard_free(void *user) {
  sj_store_guard *g = user;
  isl_ast_expr_free(g->store);
  free(g);
}

typedef struct of_arg {
  isl_id *stmt;
  isl_union_set *res;
} of_arg;

static isl_stat keep_space(__isl_take isl_map *map, void *user) {
  of_arg *a = user;
  isl_id *id = isl_map_get_tuple_id(map, isl_dim_in);
  if (id == a->stmt)
    a->res =
        isl_union_set_add_set(a->res, isl_set_universe(isl_space_domain(isl_map_get_space(map))));
  isl_id_free(id);
  isl_map_free(map);
  return a->res ? isl_stat_ok : isl_stat_error;
}

/* The universe of the domain spaces of sched whose tuple id is stmt. */
static __isl_give isl_union_set *of_statement(__isl_keep isl_union_map *sched,
                                              __isl_keep isl_id *stmt) {
  of_arg a = {stmt, isl_union_set_empty(isl_union_map_get_space(sched))};
  if (isl_union_map_foreach_map(sched, keep_space, &a) < 0) a.res = isl_union_set_free(a.res);
  return a.res;
}

__isl_give isl_ast_node *sj_ast_guard_stores(__isl_take isl_ast_node *node,
                                             __isl_keep isl_ast_build *build, void *user) {
  sj_guard_build *gb = user;
  isl_union_set *local = gb->local;
  if (isl_ast_node_get_type(node) != isl_ast_node_user || !gb->in_full) return node;
  /* the instances of this node's statement (the build's may hold others at the same point) */
  isl_ast_expr *call = isl_ast_node_user_get_expr(node);
  isl_ast_expr *fn = isl_ast_expr_get_op_arg(call, 0);
  isl_id *stmt = isl_ast_expr_get_id(fn);
  isl_ast_expr_free(fn);
  isl_ast_expr_free(call);
  const sj_id_kind *tag = stmt ? isl_id_get_user(stmt) : NULL;
  if (!tag || *tag != SJ_ID_STMT) { /* a copy or a barrier */
    isl_id_free(stmt);
    return node;
  }
  isl_union_map *sched = isl_ast_build_get_schedule(build);
  sched = isl_union_map_intersect_domain(sched, of_statement(sched, stmt));
  isl_id_free(stmt);
  isl_union_set *dom = isl_union_map_domain(isl_union_map_copy(sched));
  isl_union_set *mine = isl_union_set_intersect(isl_union_set_copy(dom), isl_union_set_copy(local));
  isl_bool none = isl_union_set_is_empty(mine);
  isl_bool all = none ? none : isl_union_set_is_subset(dom, mine);
  isl_union_set_free(dom);
  if (none != isl_bool_false || all < 0) { /* every instance stored (or isl failed: stored) */
    isl_union_set_free(mine);
    isl_union_map_free(sched);
    return node;
  }
  sj_store_guard *g = malloc(sizeof *g);
  if (!g) abort();
  *g = (sj_store_guard){SJ_ID_STORE_GUARD, NULL};
  if (!all) { /* stored where the instance is not one of those */
    isl_set *where = isl_set_from_union_set(isl_union_set_apply(mine, sched));
    isl_ast_expr *stays = isl_ast_build_expr_from_set(build, where);
    g->store = stays ? negate(stays) : NULL;
    isl_ast_expr_free(stays);
    if (!g->store) { /* not a condition isl states with comparisons: always stored */
      free(g);
      return node;
    }
  } else {
    isl_union_set_free(mine);
    isl_union_map_free(sched);
  }
  isl_id *id = isl_id_alloc(isl_ast_node_get_ctx(node), "store_guard", g);
  id = isl_id_set_free_user(id, guard_free);
  return isl_ast_node_set_annotation(node, id);
}

void sj_ast_guard_mark(sj_guard_build *gb, __isl_keep isl_id *mark, int entering) {
  const sj_mapped_id *v = mark ? isl_id_get_user(mark) : NULL;
  if (v && v->tag == SJ_ID_VERSION && v->dim == 1) gb->in_full += entering ? 1 : -1;
}
