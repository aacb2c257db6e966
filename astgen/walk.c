/* The AST walk shared by the printers (see astgen.h for the parallel structure). */
#include "astgen/astgen.h"

#include <stdlib.h>
#include <string.h>

#include <isl/id.h>

#include "sched/sched.h"

typedef struct walker {
  const sj_walk_ops *ops;
  void *t;
  const sj_kernel_map *kernel; /* inside a kernel: how its loops map */
  int host;                    /* GPU host walk: kernels are hooks */
} walker;

static int mark_is(__isl_keep isl_ast_node *node, const char *name) {
  if (isl_ast_node_get_type(node) != isl_ast_node_mark) return 0;
  isl_id *id = isl_ast_node_mark_get_id(node);
  int yes = !strcmp(isl_id_get_name(id), name);
  isl_id_free(id);
  return yes;
}

const sj_kernel_map *sj_ast_kernel_map(__isl_keep isl_ast_node *node) {
  if (!mark_is(node, SJ_MARK_KERNEL)) return NULL;
  isl_id *id = isl_ast_node_mark_get_id(node);
  const sj_kernel_map *k = isl_id_get_user(id);
  isl_id_free(id);
  return k;
}

/* The kind of loop in a kernel: by its iterator c<depth>, the schedule depth. */
static sj_loop_kind kernel_loop(const walker *w, __isl_keep isl_ast_node *loop, int *member) {
  const sj_kernel_map *k = w->kernel;
  *member = 0;
  if (!k || !k->nmapped) return SJ_LOOP_SEQUENTIAL;
  int depth = sj_ast_loop_depth(loop);
  if (depth < k->band_depth || depth >= k->band_depth + k->nmapped) return SJ_LOOP_SEQUENTIAL;
  *member = depth - k->band_depth;
  return SJ_LOOP_MAPPED;
}

static int is_parallel_mark(__isl_keep isl_ast_node *node) {
  return mark_is(node, SJ_MARK_PARALLEL);
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
  int dim = 0;
  sj_loop_kind kind;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for: {
    kind = distributed ? SJ_LOOP_DISTRIBUTED : kernel_loop(w, node, &dim);
    int copies = w->ops->for_begin(w->t, node, kind, dim);
    child = isl_ast_node_for_get_body(node);
    for (int c = 0; c < copies; c++) {
      if (c) w->ops->for_copy(w->t, node, c);
      plain(w, child, 0);
    }
    isl_ast_node_free(child);
    w->ops->for_end(w->t, node, kind);
    break;
  }
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
    if (w->host && mark_is(node, SJ_MARK_KERNEL)) {
      w->ops->kernel(w->t, node, sj_ast_kernel_map(node));
      break;
    }
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
  default:
    break;
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
  case isl_ast_node_for: {
    int copies = w->ops->for_begin(w->t, node, SJ_LOOP_SEQUENTIAL, 0);
    child = isl_ast_node_for_get_body(node);
    for (int c = 0; c < copies; c++) {
      if (c) w->ops->for_copy(w->t, node, c);
      walk(w, child);
    }
    isl_ast_node_free(child);
    w->ops->for_end(w->t, node, SJ_LOOP_SEQUENTIAL);
    break;
  }
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
  default:
    single(w, node);
    break;
  }
}

void sj_ast_walk(__isl_keep isl_ast_node *root, const sj_walk_ops *ops, void *target) {
  walker w = {ops, target, NULL, 0};
  if (root) walk(&w, root);
}

void sj_ast_walk_host(__isl_keep isl_ast_node *root, const sj_walk_ops *ops, void *target) {
  walker w = {ops, target, NULL, 1};
  if (root) plain(&w, root, 0);
}

void sj_ast_walk_kernel(__isl_keep isl_ast_node *mark, const sj_walk_ops *ops, void *target) {
  walker w = {ops, target, sj_ast_kernel_map(mark), 0};
  isl_ast_node *child = isl_ast_node_mark_get_node(mark);
  plain(&w, child, 0);
  isl_ast_node_free(child);
}

/* isl names loop iterators c<schedule depth>. */
int sj_ast_id_depth(__isl_keep isl_ast_expr *e) {
  isl_id *id = isl_ast_expr_get_id(e);
  const char *name = id ? isl_id_get_name(id) : NULL;
  int d = name && name[0] == 'c' ? atoi(name + 1) : -1;
  isl_id_free(id);
  return d;
}

int sj_ast_loop_depth(__isl_keep isl_ast_node *loop) {
  isl_ast_expr *it = isl_ast_node_for_get_iterator(loop);
  int d = sj_ast_id_depth(it);
  isl_ast_expr_free(it);
  return d;
}

int sj_ast_mentions(__isl_keep isl_ast_expr *e, int depth) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) return sj_ast_id_depth(e) == depth;
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return 0;
  int n = isl_ast_expr_op_get_n_arg(e), found = 0;
  for (int i = 0; i < n && !found; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    found = sj_ast_mentions(a, depth);
    isl_ast_expr_free(a);
  }
  return found;
}

int sj_ast_call_stmt(__isl_keep isl_ast_expr *call) {
  isl_ast_expr *fn = isl_ast_expr_get_op_arg(call, 0);
  isl_id *id = isl_ast_expr_get_id(fn);
  int s = atoi(isl_id_get_name(id) + 1);
  isl_id_free(id);
  isl_ast_expr_free(fn);
  return s;
}

typedef struct free_iters {
  unsigned char used[256], bound[256];
} free_iters;

static void expr_ids(__isl_keep isl_ast_expr *e, free_iters *f) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    int d = sj_ast_id_depth(e);
    if (d >= 0 && d < 256) f->used[d] = 1;
    return;
  }
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return;
  int n = isl_ast_expr_op_get_n_arg(e);
  for (int i = 0; i < n; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    expr_ids(a, f);
    isl_ast_expr_free(a);
  }
}

static isl_bool node_ids(__isl_keep isl_ast_node *node, void *user) {
  free_iters *f = user;
  isl_ast_expr *e[3] = {NULL, NULL, NULL};
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for: {
    int d = sj_ast_loop_depth(node);
    if (d >= 0 && d < 256) f->bound[d] = 1;
    e[0] = isl_ast_node_for_get_init(node);
    e[1] = isl_ast_node_for_get_cond(node);
    e[2] = isl_ast_node_for_get_inc(node);
    break;
  }
  case isl_ast_node_if:
    e[0] = isl_ast_node_if_get_cond(node);
    break;
  case isl_ast_node_user:
    e[0] = isl_ast_node_user_get_expr(node);
    break;
  default:
    break;
  }
  for (int i = 0; i < 3; i++)
    if (e[i]) {
      expr_ids(e[i], f);
      isl_ast_expr_free(e[i]);
    }
  return isl_bool_true;
}

int sj_ast_kernel_host_iters(__isl_keep isl_ast_node *mark, int *depths, int max) {
  free_iters f;
  memset(&f, 0, sizeof f);
  isl_ast_node_foreach_descendant_top_down(mark, node_ids, &f);
  int n = 0;
  for (int d = 0; d < 256 && n < max; d++)
    if (f.used[d] && !f.bound[d]) depths[n++] = d;
  return n;
}
