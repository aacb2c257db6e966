/* The AST walk shared by the printers (see astgen.h for the parallel structure). */
#include "astgen/astgen.h"

#include <stdlib.h>
#include <string.h>

#include <isl/id.h>

#include "sched/sched.h"

typedef struct walker {
  const sj_walk_ops *ops;
  void *t;
} walker;

static int is_parallel_mark(__isl_keep isl_ast_node *node) {
  if (isl_ast_node_get_type(node) != isl_ast_node_mark) return 0;
  isl_id *id = isl_ast_node_mark_get_id(node);
  int yes = !strcmp(isl_id_get_name(id), SJ_MARK_PARALLEL);
  isl_id_free(id);
  return yes;
}

static isl_bool find_mark(__isl_keep isl_ast_node *node, void *found) {
  if (is_parallel_mark(node)) *(int *)found = 1;
  return *(int *)found ? isl_bool_false : isl_bool_true;
}

static int has_parallel(__isl_keep isl_ast_node *node) {
  int found = 0;
  isl_ast_node_foreach_descendant_top_down(node, &find_mark, &found);
  return found;
}

static void if_begin(walker *w, __isl_keep isl_ast_node *node) {
  isl_ast_expr *cond = isl_ast_node_if_get_cond(node);
  w->ops->if_begin(w->t, cond);
  isl_ast_expr_free(cond);
}

/* Everything below runs on the thread that reached it. */
static void plain(walker *w, __isl_keep isl_ast_node *node, int distributed) {
  isl_ast_node *child;
  isl_ast_node_list *list;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    w->ops->for_begin(w->t, node, distributed);
    child = isl_ast_node_for_get_body(node);
    plain(w, child, 0);
    isl_ast_node_free(child);
    w->ops->for_end(w->t, node, distributed);
    break;
  case isl_ast_node_if:
    if_begin(w, node);
    child = isl_ast_node_if_get_then_node(node);
    plain(w, child, 0);
    isl_ast_node_free(child);
    if (isl_ast_node_if_has_else_node(node)) {
      w->ops->if_else(w->t);
      child = isl_ast_node_if_get_else_node(node);
      plain(w, child, 0);
      isl_ast_node_free(child);
    }
    w->ops->if_end(w->t);
    break;
  case isl_ast_node_block:
    list = isl_ast_node_block_get_children(node);
    for (int i = 0; i < isl_ast_node_list_n_ast_node(list); i++) {
      child = isl_ast_node_list_get_ast_node(list, i);
      plain(w, child, 0);
      isl_ast_node_free(child);
    }
    isl_ast_node_list_free(list);
    break;
  case isl_ast_node_mark:
    child = isl_ast_node_mark_get_node(node);
    plain(w, child, 0);
    isl_ast_node_free(child);
    break;
  case isl_ast_node_user: {
    isl_ast_expr *call = isl_ast_node_user_get_expr(node);
    w->ops->stmt(w->t, call);
    isl_ast_expr_free(call);
    break;
  }
  default: break;
  }
}

static void single(walker *w, __isl_keep isl_ast_node *node) {
  w->ops->single_begin(w->t);
  plain(w, node, 0);
  w->ops->single_end(w->t);
  w->ops->barrier(w->t);
}

static void walk(walker *w, __isl_keep isl_ast_node *node) {
  if (!has_parallel(node)) {
    single(w, node);
    return;
  }
  isl_ast_node *child;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    w->ops->for_begin(w->t, node, 0);
    child = isl_ast_node_for_get_body(node);
    walk(w, child);
    isl_ast_node_free(child);
    w->ops->for_end(w->t, node, 0);
    break;
  case isl_ast_node_if:
    if_begin(w, node);
    child = isl_ast_node_if_get_then_node(node);
    walk(w, child);
    isl_ast_node_free(child);
    if (isl_ast_node_if_has_else_node(node)) {
      w->ops->if_else(w->t);
      child = isl_ast_node_if_get_else_node(node);
      walk(w, child);
      isl_ast_node_free(child);
    }
    w->ops->if_end(w->t);
    break;
  case isl_ast_node_block: {
    isl_ast_node_list *list = isl_ast_node_block_get_children(node);
    int n = isl_ast_node_list_n_ast_node(list);
    for (int i = 0; i < n; i++) {
      child = isl_ast_node_list_get_ast_node(list, i);
      walk(w, child);
      isl_ast_node_free(child);
    }
    isl_ast_node_list_free(list);
    break;
  }
  case isl_ast_node_mark:
    child = isl_ast_node_mark_get_node(node);
    if (is_parallel_mark(node) && isl_ast_node_get_type(child) == isl_ast_node_for) {
      plain(w, child, 1);
      w->ops->barrier(w->t);
    } else if (is_parallel_mark(node)) {
      single(w, child); /* the tile loop had one iteration and isl dropped it */
    } else {
      walk(w, child);
    }
    isl_ast_node_free(child);
    break;
  default: single(w, node); break;
  }
}

void sj_ast_walk(__isl_keep isl_ast_node *root, const sj_walk_ops *ops, void *target) {
  walker w = {ops, target};
  if (root) walk(&w, root);
}

int sj_ast_call_stmt(__isl_keep isl_ast_expr *call) {
  isl_ast_expr *fn = isl_ast_expr_get_op_arg(call, 0);
  isl_id *id = isl_ast_expr_get_id(fn);
  int s = atoi(isl_id_get_name(id) + 1);
  isl_id_free(id);
  isl_ast_expr_free(fn);
  return s;
}
