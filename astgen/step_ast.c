/* The AST of a per-step GPU kernel without isl's AST generator, which takes some 4 ms for
 * sched/baseline.c's small tree (most of a cold compile), 10 ms for two statements. The tree
 * must be exactly
 *
 *   domain (statements, each a box) ─ [band: the host loop, each statement's first iterator]
 *     ─ [sequence of filters, each holding whole statements: a kernel each, in order]
 *     ─ mark kernel ─ context ─ filter (iterators = affine in block/thread ids)
 *     ─ mark threads ─ [sequence of filters, one per point of a thread] ─ leaves
 *
 * (one statement without the band; with several, the same host range for each: isl splits
 * the loop where they differ), and the AST is then the one isl builds: the host loop (isl's,
 * from the first statement's host range alone: a cheap build), in it each kernel mark, a guard on
 * the ids over the outer filter's iterators where the ids can take them out of the box, the threads
 * mark, and each point's statement call, guarded where its iterator can leave the box. Guards and
 * call arguments are isl's own expressions (isl_ast_build_expr_from_*), built on the kernel's
 * context. Anything else, or a case where isl would hoist a guard shared by every point or drop a
 * point, returns NULL and isl builds the AST. tests/sched/step_ast_test.c checks the two
 * ASTs are the same text over the test kernels and edge sizes.
 *
 * A kernel of several statements (nests that share a launch, sched/gpu.c) is not isl's AST:
 * isl separates the statements' points where they differ, which here cost more than the rest
 * of a compile; the statements of a launch touch nothing in common in a step, so each point
 * of each statement is guarded alone instead, and a statement placed at a constant along a
 * dimension is guarded by what its filters say of the ids (8 b1 + t1 = 0). */
#include "astgen/astgen.h"

#if SJ_HAVE_ISL_AST_ALLOC
#include "astgen/isl_ast_alloc.h"

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>
#include <stdlib.h>

enum { MAX_DIMS = 8, MAX_POINTS = 8, MAX_PARAMS = 8 };

/* An iterator bound by a filter: x = cst + sum coef[p] * param p of the kernel context. */
typedef struct binding {
  int bound;
  long cst, coef[MAX_PARAMS];
} binding;

typedef struct step {
  isl_ctx *ctx;
  int ndims, nhost, nparams, npoints;
  long lo[MAX_DIMS], hi[MAX_DIMS];
  long pmax[MAX_PARAMS]; /* each id runs over 0..pmax */
  isl_space *params;     /* the context's parameters */
  isl_space *gspace;     /* the 0-dimensional set over them: guards, iterators */
  binding outer[MAX_DIMS], point[MAX_POINTS][MAX_DIMS];
  /* with several statements a kernel: what a filter says of the ids alone (a statement placed
   * at a constant along a dimension), on gspace; else NULL */
  isl_set *outer_ids, *point_ids[MAX_POINTS];
  int failed;
} step;

/* The box of a constraint on one iterator with coefficient +-1 and no parameter. */
static isl_stat box_constraint(__isl_take isl_constraint *c, void *user) {
  step *s = user;
  int dim = -1, ok = !isl_constraint_involves_dims(c, isl_dim_param, 0,
                                                   (unsigned)isl_constraint_dim(c, isl_dim_param));
  for (int d = 0; d < s->ndims && ok; d++) {
    if (!isl_constraint_involves_dims(c, isl_dim_set, (unsigned)d, 1)) continue;
    ok = dim < 0;
    dim = d;
  }
  isl_val *a = dim >= 0 ? isl_constraint_get_coefficient_val(c, isl_dim_set, dim) : NULL;
  isl_val *k = isl_constraint_get_constant_val(c);
  long coef = a ? isl_val_get_num_si(a) : 0, cst = isl_val_get_num_si(k);
  ok = ok && dim >= 0 && (coef == 1 || coef == -1) && isl_val_is_int(k);
  if (ok) { /* coef x + cst >= 0 (or == 0) */
    int eq = isl_constraint_is_equality(c) == isl_bool_true;
    if (coef == 1 || eq) s->lo[dim] = s->lo[dim] > -coef * cst ? s->lo[dim] : -coef * cst;
    if (coef == -1 || eq) s->hi[dim] = s->hi[dim] < -coef * cst ? s->hi[dim] : -coef * cst;
  }
  isl_val_free(a);
  isl_val_free(k);
  isl_constraint_free(c);
  if (!ok) s->failed = 1;
  return ok ? isl_stat_ok : isl_stat_error;
}

/* The statement's domain as a box in s->lo/hi; 0 when it is one. */
static int get_box(step *s, __isl_keep isl_set *set) {
  s->ndims = (int)isl_set_dim(set, isl_dim_set);
  if (s->ndims > MAX_DIMS || isl_set_n_basic_set(set) != 1) return -1;
  for (int d = 0; d < s->ndims; d++) s->lo[d] = -(1L << 40), s->hi[d] = 1L << 40;
  isl_basic_set_list *list = isl_set_get_basic_set_list(set);
  isl_basic_set *bset = isl_basic_set_list_get_basic_set(list, 0);
  isl_basic_set_list_free(list);
  int ok = bset && isl_basic_set_dim(bset, isl_dim_div) == 0 &&
           isl_basic_set_foreach_constraint(bset, box_constraint, s) == isl_stat_ok;
  isl_basic_set_free(bset);
  for (int d = 0; d < s->ndims && ok; d++) ok = s->lo[d] > -(1L << 40) && s->hi[d] < 1L << 40;
  return ok ? 0 : -1;
}

/* Whether member k of the host band is the statement's iterator k. */
static int host_member(__isl_keep isl_schedule_node *band, int k, __isl_keep isl_space *space) {
  isl_multi_union_pw_aff *mupa = isl_schedule_node_band_get_partial_schedule(band);
  isl_union_pw_aff *upa = isl_multi_union_pw_aff_get_union_pw_aff(mupa, k);
  isl_space *pspace =
      isl_space_add_dims(isl_space_from_domain(isl_space_copy(space)), isl_dim_out, 1);
  isl_pw_aff *pa = isl_union_pw_aff_extract_pw_aff(upa, pspace);
  isl_multi_union_pw_aff_free(mupa);
  isl_union_pw_aff_free(upa);
  int ok = pa && isl_pw_aff_n_piece(pa) == 1 &&
           (int)isl_pw_aff_dim(pa, isl_dim_in) == isl_space_dim(space, isl_dim_set);
  ok = ok && isl_pw_aff_isa_aff(pa) == isl_bool_true; /* as_aff would fail loudly */
  isl_aff *aff = ok ? isl_pw_aff_as_aff(pa) : (isl_pw_aff_free(pa), NULL);
  for (int d = 0; aff && d < (int)isl_aff_dim(aff, isl_dim_in) && ok; d++) {
    isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_in, d);
    ok = isl_val_is_one(v) == (d == k) && (d == k || isl_val_is_zero(v));
    isl_val_free(v);
  }
  if (aff) {
    isl_val *c = isl_aff_get_constant_val(aff);
    ok = ok && isl_val_is_zero(c) && isl_aff_dim(aff, isl_dim_div) == 0 &&
         !isl_aff_involves_dims(aff, isl_dim_param, 0, (unsigned)isl_aff_dim(aff, isl_dim_param));
    isl_val_free(c);
  }
  isl_aff_free(aff);
  return aff && ok;
}

/* The range of each context parameter: a block or thread id of kernel k. */
static int param_ranges(step *s, const sj_kernel *k) {
  s->nparams = (int)isl_space_dim(s->params, isl_dim_param);
  if (s->nparams > MAX_PARAMS) return -1;
  for (int p = 0; p < s->nparams; p++) {
    isl_id *id = isl_space_get_dim_id(s->params, isl_dim_param, (unsigned)p);
    const sj_mapped_id *m = id ? isl_id_get_user(id) : NULL;
    isl_id_free(id);
    if (!m || (m->tag != SJ_ID_BLOCK && m->tag != SJ_ID_THREAD)) return -1;
    s->pmax[p] = (long)(m->tag == SJ_ID_BLOCK ? k->grid[m->dim] : k->block[m->dim]) - 1;
  }
  return 0;
}

typedef struct bind_data {
  step *s;
  isl_space *cspace; /* the constraint's */
  binding *b;
  isl_set **ids; /* where equalities of the ids alone go; NULL: none may be */
} bind_data;

/* An equality of the ids alone into *bd->ids, over the step's parameters. */
static int bind_ids(bind_data *bd, __isl_take isl_constraint *c) {
  isl_set *eq = isl_set_params(isl_set_from_basic_set(isl_basic_set_from_constraint(c)));
  eq = isl_set_align_params(eq, isl_space_copy(bd->s->gspace));
  *bd->ids = isl_set_intersect(*bd->ids, eq);
  return *bd->ids != NULL;
}

/* An equality x = affine in the ids, with coefficient +-1 on x. */
static isl_stat bind_constraint(__isl_take isl_constraint *c, void *user) {
  bind_data *bd = user;
  step *s = bd->s;
  int dim = -1, ok = isl_constraint_is_equality(c) == isl_bool_true;
  for (int d = 0; d < s->ndims && ok; d++) {
    if (!isl_constraint_involves_dims(c, isl_dim_set, (unsigned)d, 1)) continue;
    ok = dim < 0 && d >= s->nhost;
    dim = d;
  }
  if (ok && dim < 0 && bd->ids) return bind_ids(bd, c) ? isl_stat_ok : isl_stat_error;
  ok = ok && dim >= 0 && !bd->b[dim].bound;
  long sign = 0;
  if (ok) {
    isl_val *a = isl_constraint_get_coefficient_val(c, isl_dim_set, dim);
    sign = isl_val_is_one(a) ? -1 : isl_val_is_negone(a) ? 1 : 0; /* x = sign * (rest) */
    isl_val_free(a);
    ok = sign != 0;
  }
  binding b = {1, 0, {0}};
  int np = ok ? (int)isl_constraint_dim(c, isl_dim_param) : 0;
  for (int p = 0; p < np && ok; p++) {
    isl_val *v = isl_constraint_get_coefficient_val(c, isl_dim_param, p);
    if (!isl_val_is_zero(v)) {
      isl_id *id = isl_space_get_dim_id(bd->cspace, isl_dim_param, (unsigned)p);
      int at = isl_space_find_dim_by_id(s->params, isl_dim_param, id);
      isl_id_free(id);
      ok = at >= 0 && isl_val_is_int(v);
      if (ok) b.coef[at] = sign * isl_val_get_num_si(v);
    }
    isl_val_free(v);
  }
  isl_val *k = isl_constraint_get_constant_val(c);
  b.cst = sign * isl_val_get_num_si(k);
  isl_val_free(k);
  if (ok) bd->b[dim] = b;
  isl_constraint_free(c);
  if (!ok) s->failed = 1;
  return ok ? isl_stat_ok : isl_stat_error;
}

/* The iterators filter binds, for the statement of space, into b; with ids (several statements
 * a kernel), the equalities of the ids alone into *ids. */
static int get_bindings(step *s, __isl_keep isl_schedule_node *node, __isl_keep isl_space *space,
                        binding *b, isl_set **ids) {
  isl_union_set *f = isl_schedule_node_filter_get_filter(node);
  isl_set *set = NULL;
  if (ids) {
    set = isl_union_set_extract_set(f, isl_space_copy(space));
  } else {
    isl_set_list *sets = isl_union_set_get_set_list(f);
    set = isl_set_list_size(sets) == 1 ? isl_set_list_get_at(sets, 0) : NULL;
    isl_set_list_free(sets);
  }
  isl_union_set_free(f);
  int ok = set && (int)isl_set_dim(set, isl_dim_set) == isl_space_dim(space, isl_dim_set) &&
           isl_set_n_basic_set(set) == 1;
  isl_basic_set_list *list = ok ? isl_set_get_basic_set_list(set) : NULL;
  isl_basic_set *bset = list ? isl_basic_set_list_get_basic_set(list, 0) : NULL;
  bind_data bd = {s, isl_set_get_space(set), b, ids};
  ok = bset && isl_basic_set_dim(bset, isl_dim_div) == 0 &&
       isl_basic_set_foreach_constraint(bset, bind_constraint, &bd) == isl_stat_ok;
  isl_space_free(bd.cspace);
  isl_basic_set_free(bset);
  isl_basic_set_list_free(list);
  isl_set_free(set);
  return ok ? 0 : -1;
}

/* The range of a bound iterator over the ids' ranges. */
static void range(const step *s, const binding *b, long *min, long *max) {
  *min = *max = b->cst;
  for (int p = 0; p < s->nparams; p++) {
    long v = b->coef[p] * s->pmax[p];
    *(v < 0 ? min : max) += v;
  }
}

/* The iterator as an affine function of the ids (on a 0-dimensional set). */
static __isl_give isl_aff *binding_aff(const step *s, const binding *b) {
  isl_aff *aff = isl_aff_val_on_domain(isl_local_space_from_space(isl_space_copy(s->gspace)),
                                       isl_val_int_from_si(s->ctx, b->cst));
  for (int p = 0; p < s->nparams; p++)
    if (b->coef[p]) aff = isl_aff_set_coefficient_si(aff, isl_dim_param, p, (int)b->coef[p]);
  return aff;
}

/* Adds to *guard the constraints keeping the bound iterators of b in the box; the number
 * added, or -1 when some point of b never lies in it, or (as isl: where isl's AST is the one to
 * match) when an iterator needs both bounds in a window no wider than a block id's step (isl
 * finds equalities there: b0 + t0 == 1 for 1 <= 2 b0 + t0 <= 2). */
static int add_guards(const step *s, const binding *b, int as_isl, isl_set **guard) {
  int n = 0;
  for (int d = s->nhost; d < s->ndims; d++) {
    if (!b[d].bound) continue;
    long min, max;
    range(s, &b[d], &min, &max);
    long step = 0;
    for (int p = 0; p < s->nparams; p++)
      step = labs(b[d].coef[p]) > step ? labs(b[d].coef[p]) : step;
    if (max < s->lo[d] || min > s->hi[d]) return -1;
    if (as_isl && min < s->lo[d] && max > s->hi[d] && s->hi[d] - s->lo[d] <= step) return -1;
    for (int side = 0; side < 2; side++) {
      if (side ? max <= s->hi[d] : min >= s->lo[d]) continue;
      isl_aff *aff = binding_aff(s, &b[d]); /* lo <= x, or x <= hi */
      isl_val *bound = isl_val_int_from_si(s->ctx, side ? s->hi[d] : s->lo[d]);
      aff = side ? isl_aff_neg(isl_aff_add_constant_val(aff, isl_val_neg(bound)))
                 : isl_aff_add_constant_val(aff, isl_val_neg(bound));
      *guard = isl_set_intersect(*guard, isl_set_from_basic_set(isl_basic_set_from_constraint(
                                             isl_inequality_from_aff(aff))));
      n++;
    }
  }
  return n;
}

/* The statement call of one point: the host iterators' expressions, then the bound ones. */
static __isl_give isl_ast_node *call(const step *s, __isl_keep isl_ast_build *build,
                                     __isl_keep isl_id *stmt, __isl_keep isl_ast_expr *host,
                                     const binding *outer, const binding *point) {
  isl_ast_expr_list *args = isl_ast_expr_list_alloc(s->ctx, s->ndims);
  for (int d = 0; d < s->ndims; d++) {
    const binding *b = outer[d].bound ? &outer[d] : &point[d];
    args = isl_ast_expr_list_add(
        args, d < s->nhost
                  ? isl_ast_expr_get_op_arg(host, d + 1)
                  : isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_from_aff(binding_aff(s, b))));
  }
  isl_ast_expr *fn = isl_ast_expr_from_id(isl_id_copy(stmt));
  return isl_ast_node_alloc_user(isl_ast_expr_call(fn, args));
}

static __isl_give isl_ast_node *guarded(__isl_keep isl_ast_build *build, __isl_take isl_set *guard,
                                        int n, __isl_take isl_ast_node *node) {
  if (!n) {
    isl_set_free(guard);
    return node;
  }
  isl_ast_node *branch = isl_ast_node_alloc_if(isl_ast_build_expr_from_set(build, guard));
  return isl_ast_node_if_set_then(branch, node);
}

/* The iterators of the statement of space bound by filter (s->outer) and by each point's
 * filter of below (s->point; seq: below is their sequence, else a leaf); with several
 * statements a kernel, the equalities of the ids alone too. 0 on success. */
static int bind_statement(step *s, __isl_keep isl_schedule_node *filter,
                          __isl_keep isl_schedule_node *below, int seq, __isl_keep isl_space *space,
                          int several) {
  int ok = !get_bindings(s, filter, space, s->outer, several ? &s->outer_ids : NULL);
  s->npoints = seq ? (int)isl_schedule_node_n_children(below) : 1;
  ok = ok && s->npoints <= MAX_POINTS;
  for (int u = 0; u < s->npoints && ok; u++) {
    isl_schedule_node *f = seq ? isl_schedule_node_get_child(below, u) : NULL;
    isl_schedule_node *leaf = f ? isl_schedule_node_get_child(f, 0) : isl_schedule_node_copy(below);
    ok = isl_schedule_node_get_type(leaf) == isl_schedule_node_leaf;
    for (int d = 0; d < s->ndims; d++) s->point[u][d] = s->outer[d];
    if (ok && f) ok = !get_bindings(s, f, space, s->point[u], several ? &s->point_ids[u] : NULL);
    for (int d = s->nhost; d < s->ndims && ok; d++) {
      binding fixed = {1, s->lo[d], {0}}; /* a loop of one point placed at a constant */
      if (several && !s->point[u][d].bound && s->lo[d] == s->hi[d]) s->point[u][d] = fixed;
      ok = s->point[u][d].bound;
    }
    for (int d = 0; d < s->ndims && ok; d++) s->point[u][d].bound &= !s->outer[d].bound;
    isl_schedule_node_free(leaf);
    isl_schedule_node_free(f);
  }
  return ok ? 0 : -1;
}

/* The kernel's code for one statement (the statement of domain): isl's AST where it is the
 * kernel's only statement, else NULL. */
static __isl_give isl_ast_node *only_statement(step *s, __isl_keep isl_ast_build *build,
                                               __isl_keep isl_set *domain, int seq,
                                               __isl_keep isl_ast_expr *host,
                                               __isl_take isl_id *threads) {
  isl_ast_node *body = NULL;
  isl_set *outer = isl_set_universe(isl_space_copy(s->gspace));
  int nouter = add_guards(s, s->outer, 1, &outer);
  isl_ast_node_list *list = nouter >= 0 ? isl_ast_node_list_alloc(s->ctx, s->npoints) : NULL;
  int guarded_points = 0;
  isl_id *stmt = isl_set_get_tuple_id(domain);
  for (int u = 0; u < s->npoints && list; u++) {
    isl_set *g = isl_set_universe(isl_space_copy(s->gspace));
    int n = add_guards(s, s->point[u], 1, &g);
    if (n < 0) { /* isl drops the point: not this path */
      isl_set_free(g);
      list = isl_ast_node_list_free(list);
      break;
    }
    guarded_points += n > 0;
    if (!seq) { /* one point: its guards join the outer ones */
      outer = isl_set_intersect(outer, g);
      nouter += n;
      g = NULL, n = 0;
    }
    list = isl_ast_node_list_add(list,
                                 guarded(build, g ? g : isl_set_universe(isl_space_copy(s->gspace)),
                                         n, call(s, build, stmt, host, s->outer, s->point[u])));
  }
  /* guards on every point of a sequence: isl would hoist what they share */
  if (list && seq && guarded_points == s->npoints) list = isl_ast_node_list_free(list);
  if (list) {
    body = s->npoints == 1 ? isl_ast_node_list_get_ast_node(list, 0)
                           : isl_ast_node_alloc_block(isl_ast_node_list_copy(list));
    body = guarded(build, isl_set_copy(outer), nouter, isl_ast_node_alloc_mark(threads, body));
    threads = NULL;
  }
  isl_id_free(stmt);
  isl_id_free(threads);
  isl_ast_node_list_free(list);
  isl_set_free(outer);
  return body;
}

/* guard, and the number of its constraints n, with ids (taken) too. */
static int with_ids(isl_set **guard, int n, __isl_take isl_set *ids) {
  n += isl_set_plain_is_universe(ids) != isl_bool_true;
  *guard = isl_set_intersect(*guard, ids);
  return n;
}

/* The calls of one statement of several in a kernel onto list: each point's where the
 * statement's box and the ids allow it (not isl's AST: the statements' points are independent
 * within the step, so each is guarded alone, in the order of the statements). */
static __isl_give isl_ast_node_list *statement_calls(step *s, __isl_keep isl_ast_build *build,
                                                     __isl_keep isl_set *domain,
                                                     __isl_keep isl_ast_expr *host,
                                                     __isl_take isl_ast_node_list *list) {
  isl_set *outer = isl_set_universe(isl_space_copy(s->gspace));
  int nouter = add_guards(s, s->outer, 0, &outer);
  nouter = nouter < 0 ? -1 : with_ids(&outer, nouter, isl_set_copy(s->outer_ids));
  isl_ast_node_list *points = isl_ast_node_list_alloc(s->ctx, s->npoints);
  isl_id *stmt = isl_set_get_tuple_id(domain);
  for (int u = 0; u < s->npoints && nouter >= 0; u++) {
    isl_set *g = isl_set_universe(isl_space_copy(s->gspace));
    int n = add_guards(s, s->point[u], 0, &g);
    if (n < 0) { /* a point that never runs */
      isl_set_free(g);
      continue;
    }
    n = with_ids(&g, n, isl_set_copy(s->point_ids[u]));
    points = isl_ast_node_list_add(
        points, guarded(build, g, n, call(s, build, stmt, host, s->outer, s->point[u])));
  }
  isl_id_free(stmt);
  if (nouter >= 0 && isl_ast_node_list_n_ast_node(points) > 0)
    list = isl_ast_node_list_add(list,
                                 guarded(build, isl_set_copy(outer), nouter,
                                         isl_ast_node_alloc_block(isl_ast_node_list_copy(points))));
  isl_ast_node_list_free(points);
  isl_set_free(outer);
  return list;
}

/* The kernel mark's subtree below its context, for the statements of domains: the kernel's
 * code, or NULL. */
static __isl_give isl_ast_node *kernel_body(step *s, __isl_keep isl_schedule_node *filter,
                                            isl_set *const *domains, int nstmts,
                                            __isl_keep isl_ast_expr *host,
                                            __isl_keep isl_set *context) {
  isl_schedule_node *mark = isl_schedule_node_get_child(filter, 0);
  isl_id *threads = isl_schedule_node_get_type(mark) == isl_schedule_node_mark
                        ? isl_schedule_node_mark_get_id(mark)
                        : NULL;
  isl_schedule_node *below = threads ? isl_schedule_node_get_child(mark, 0) : NULL;
  int seq = below && isl_schedule_node_get_type(below) == isl_schedule_node_sequence;
  int ok = threads && isl_id_get_user(threads) == &sj_threads_tag;
  isl_ast_build *build =
      ok ? isl_ast_build_from_context(isl_set_params(isl_set_copy(context))) : NULL;
  isl_ast_node *body = NULL;
  if (build && nstmts == 1) {
    isl_space *space = isl_set_get_space(domains[0]);
    if (!bind_statement(s, filter, below, seq, space, 0))
      body = only_statement(s, build, domains[0], seq, host, isl_id_copy(threads));
    isl_space_free(space);
  } else if (build) {
    isl_ast_node_list *list = isl_ast_node_list_alloc(s->ctx, nstmts);
    for (int i = 0; i < nstmts && list; i++) {
      step one = *s;
      one.outer_ids = isl_set_universe(isl_space_copy(s->gspace));
      for (int u = 0; u < MAX_POINTS; u++)
        one.point_ids[u] = isl_set_universe(isl_space_copy(s->gspace));
      isl_space *space = isl_set_get_space(domains[i]);
      if (!get_box(&one, domains[i]) && one.nhost < one.ndims &&
          !bind_statement(&one, filter, below, seq, space, 1))
        list = statement_calls(&one, build, domains[i], host, list);
      else
        list = isl_ast_node_list_free(list);
      isl_space_free(space);
      isl_set_free(one.outer_ids);
      for (int u = 0; u < MAX_POINTS; u++) isl_set_free(one.point_ids[u]);
    }
    if (list && isl_ast_node_list_n_ast_node(list) > 0)
      body = isl_ast_node_alloc_mark(isl_id_copy(threads),
                                     isl_ast_node_alloc_block(isl_ast_node_list_copy(list)));
    isl_ast_node_list_free(list);
  }
  isl_ast_build_free(build);
  isl_id_free(threads);
  isl_schedule_node_free(below);
  isl_schedule_node_free(mark);
  return body;
}

/* isl's AST of the host loop alone: a loop over the statement's host iterators, whose body
 * calls the statement with them (or that call alone, or an empty block). */
static __isl_give isl_ast_node *host_loop(const step *s, __isl_keep isl_set *domain) {
  isl_set *host = isl_set_project_out(isl_set_copy(domain), isl_dim_set, (unsigned)s->nhost,
                                      (unsigned)(s->ndims - s->nhost));
  isl_map *sched = isl_map_identity(isl_space_map_from_set(isl_set_get_space(host)));
  sched = isl_map_reset_tuple_id(isl_map_intersect_domain(sched, host), isl_dim_out);
  isl_ast_build *build = isl_ast_build_alloc(s->ctx);
  isl_ast_node *node = isl_ast_build_node_from_schedule_map(build, isl_union_map_from_map(sched));
  isl_ast_build_free(build);
  return node;
}

/* The code of kernel mark kmark for the statements of domains (boxes), the host iterators'
 * expressions the arguments of host; NULL where isl must build it. */
static __isl_give isl_ast_node *kernel_code(isl_ctx *ctx, int nhost,
                                            __isl_keep isl_schedule_node *kmark,
                                            isl_set *const *domains, int nstmts,
                                            __isl_keep isl_ast_expr *host) {
  step s = {.ctx = ctx, .nhost = nhost};
  isl_id *kid = isl_schedule_node_get_type(kmark) == isl_schedule_node_mark
                    ? isl_schedule_node_mark_get_id(kmark)
                    : NULL;
  const sj_id_kind *tag = kid ? isl_id_get_user(kid) : NULL;
  int ok = tag && *tag == SJ_ID_KERNEL && !get_box(&s, domains[0]) && nhost < s.ndims;
  isl_schedule_node *context = ok ? isl_schedule_node_get_child(kmark, 0) : NULL;
  isl_schedule_node *filter = NULL;
  isl_ast_node *body = NULL;
  if (context && isl_schedule_node_get_type(context) == isl_schedule_node_context) {
    filter = isl_schedule_node_get_child(context, 0);
    isl_set *cset = isl_schedule_node_context_get_context(context);
    s.params = isl_space_params(isl_set_get_space(cset));
    s.gspace = isl_space_copy(s.params);
    if (isl_schedule_node_get_type(filter) == isl_schedule_node_filter &&
        !param_ranges(&s, isl_id_get_user(kid)))
      body = kernel_body(&s, filter, domains, nstmts, host, cset);
    if (body) body = isl_ast_node_alloc_mark(isl_id_copy(kid), body);
    isl_set_free(cset);
  }
  isl_space_free(s.params);
  isl_space_free(s.gspace);
  isl_id_free(kid);
  isl_schedule_node_free(filter);
  isl_schedule_node_free(context);
  return body;
}

/* The kernels' code in place of the host loop's call, in the order of kmarks (kernel k with
 * the domains of its nstmts[k] statements from domains[first[k]]), in a block where there are
 * several. */
static __isl_give isl_ast_node *with_kernels(isl_ctx *ctx, int nhost, __isl_take isl_ast_node *loop,
                                             isl_schedule_node *const *kmarks,
                                             isl_set *const *domains, const int *first,
                                             const int *nstmts, int nkernels) {
  enum isl_ast_node_type type = isl_ast_node_get_type(loop);
  if (type == isl_ast_node_block) return loop; /* no instance: the AST is empty */
  isl_ast_node *user = type == isl_ast_node_for ? isl_ast_node_for_get_body(loop) : NULL;
  if (type == isl_ast_node_user) user = isl_ast_node_copy(loop);
  if (!user || isl_ast_node_get_type(user) != isl_ast_node_user) {
    isl_ast_node_free(user);
    return isl_ast_node_free(loop);
  }
  isl_ast_expr *host = isl_ast_node_user_get_expr(user);
  isl_ast_node_free(user);
  isl_ast_node_list *list = isl_ast_node_list_alloc(ctx, nkernels);
  for (int k = 0; k < nkernels && list; k++) {
    isl_ast_node *code = kernel_code(ctx, nhost, kmarks[k], domains + first[k], nstmts[k], host);
    list = code ? isl_ast_node_list_add(list, code) : isl_ast_node_list_free(list);
  }
  isl_ast_expr_free(host);
  isl_ast_node *body = !list           ? NULL
                       : nkernels == 1 ? isl_ast_node_list_get_ast_node(list, 0)
                                       : isl_ast_node_alloc_block(isl_ast_node_list_copy(list));
  isl_ast_node_list_free(list);
  if (!body || type == isl_ast_node_user) {
    isl_ast_node_free(loop);
    return body;
  }
  return isl_ast_node_for_set_body(loop, body);
}

/* Whether filter holds every instance of the statement of domain. */
static int whole_statement(__isl_keep isl_union_set *filter, __isl_keep isl_set *domain) {
  isl_set *mine = isl_union_set_extract_set(filter, isl_set_get_space(domain));
  isl_bool whole = isl_set_plain_is_universe(mine);
  if (whole == isl_bool_false) whole = isl_set_is_subset(domain, mine);
  isl_set_free(mine);
  return whole == isl_bool_true;
}

enum { MAX_KERNELS = 8 };

/* Below the host band: one kernel mark, or a sequence of filters each holding whole statements
 * above its kernel mark. The marks into kmarks, the domains of each one's statements (taken from
 * sets) into domains from first[k], nstmts[k] of them; the number of kernels, or -1 unless each
 * kernel has statements and each statement is in one kernel. */
static int kernel_marks(__isl_keep isl_schedule_node *node, __isl_keep isl_set_list *sets,
                        isl_schedule_node **kmarks, isl_set **domains, int *first, int *nstmts) {
  int nsets = (int)isl_set_list_size(sets);
  if (isl_schedule_node_get_type(node) != isl_schedule_node_sequence) {
    kmarks[0] = isl_schedule_node_copy(node);
    for (int i = 0; i < nsets; i++) domains[i] = isl_set_list_get_at(sets, i);
    first[0] = 0, nstmts[0] = nsets;
    return 1;
  }
  int n = (int)isl_schedule_node_n_children(node), placed = 0;
  if (n > MAX_KERNELS) return -1;
  for (int k = 0; k < n; k++) {
    isl_schedule_node *f = isl_schedule_node_get_child(node, k);
    isl_union_set *filter = isl_schedule_node_filter_get_filter(f);
    first[k] = placed;
    for (int i = 0; i < nsets; i++) {
      isl_set *set = isl_set_list_get_at(sets, i);
      if (whole_statement(filter, set))
        domains[placed++] = set;
      else
        isl_set_free(set);
    }
    nstmts[k] = placed - first[k];
    isl_union_set_free(filter);
    kmarks[k] = isl_schedule_node_get_child(f, 0);
    isl_schedule_node_free(f);
    if (!nstmts[k]) return -1; /* the caller frees what is in kmarks and domains */
  }
  return placed == nsets ? n : -1;
}

__isl_give isl_ast_node *sj_ast_step(__isl_keep isl_schedule *schedule) {
  isl_ctx *ctx = isl_schedule_get_ctx(schedule);
  isl_schedule_node *root = isl_schedule_get_root(schedule);
  isl_union_set *udom = isl_schedule_get_domain(schedule);
  isl_set_list *sets = isl_union_set_get_set_list(udom);
  isl_union_set_free(udom);
  isl_schedule_node *node = isl_schedule_node_get_child(root, 0);
  int nsets = sets ? (int)isl_set_list_size(sets) : 0, nhost = 0;
  int ok = nsets >= 1 && nsets <= MAX_KERNELS;
  long host_lo = 0, host_hi = 0;
  for (int i = 0; i < nsets && ok; i++) {
    step s = {.ctx = ctx};
    isl_set *set = isl_set_list_get_at(sets, i);
    ok = !get_box(&s, set) && s.ndims >= 1;
    if (ok && isl_schedule_node_get_type(node) == isl_schedule_node_band) {
      isl_space *space = isl_set_get_space(set);
      nhost = (int)isl_schedule_node_band_n_member(node);
      ok = nhost <= 1 && nhost < s.ndims && host_member(node, 0, space);
      isl_space_free(space);
    }
    /* one host loop for every kernel: isl would split or guard it where the ranges differ */
    if (ok && i && nhost) ok = s.lo[0] == host_lo && s.hi[0] == host_hi;
    host_lo = s.lo[0], host_hi = s.hi[0];
    isl_set_free(set);
  }
  ok = ok && (nhost == 1 || nsets == 1);
  isl_set *first = ok ? isl_set_list_get_at(sets, 0) : NULL;
  if (ok && nhost) node = isl_schedule_node_child(node, 0);
  isl_schedule_node *kmarks[MAX_KERNELS] = {NULL};
  isl_set *domains[MAX_KERNELS] = {NULL};
  int from[MAX_KERNELS], nstmts[MAX_KERNELS];
  int nkernels = ok ? kernel_marks(node, sets, kmarks, domains, from, nstmts) : -1;
  isl_ast_node *ast = NULL;
  if (nkernels > 0) {
    step s = {.ctx = ctx, .nhost = nhost};
    get_box(&s, first);
    ast = with_kernels(ctx, nhost, host_loop(&s, first), kmarks, domains, from, nstmts, nkernels);
  }
  for (int k = 0; k < MAX_KERNELS; k++) {
    isl_schedule_node_free(kmarks[k]);
    isl_set_free(domains[k]);
  }
  isl_set_free(first);
  isl_set_list_free(sets);
  isl_schedule_node_free(node);
  isl_schedule_node_free(root);
  return ast;
}

#else
__isl_give isl_ast_node *sj_ast_step(__isl_keep isl_schedule *schedule) {
  (void)schedule;
  return NULL; /* isl builds every AST */
}
#endif
