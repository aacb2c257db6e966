/* Reductions: a statement that accumulates into one array element over a loop,
 *   x[f] = x[f] op e   (op: + - * fmin fmax, & | ^; the subscripts f do not involve the loop),
 * or x[f] = g ? K : x[f] with K a constant (a flag the loop sets where g holds), where nothing else
 * in one run of that loop touches the elements accumulated there (no other access of the statement,
 * no other statement inside the loop), so that the values e take do not depend on the order of the
 * accumulation. Such a loop could run in any order (a tree of partial results): integers would give
 * the same result, floats would round differently. In exact mode floating-point reductions keep the
 * C order, bit-exact, and the explanation lists the ones found; integer ones, and fmax (fmin) of
 * terms that are never -0.0
 * (+0.0), give the same bits in any order. Those, or
 * all when the user allows reassociation, the GPU mapping (sched/baseline.c) runs in
 * parallel: the conflicts among a reduction's
 * own accumulations are ignored when it asks which members are parallel
 * (sj_band_parallel_reduced), and a `reduce` mark tells the lowering which assignments
 * accumulate in registers. */
#include "sched/sched.h"

#include <isl/map.h>
#include <isl/space.h>
#include <isl/union_map.h>

#include <math.h>
#include <stdlib.h>

#include "base/buf.h"
#include "stenciljit.h"

/* The operand of rhs that reads the accumulated element (0 or 1) when rhs combines it with
 * one other operand by an associative and commutative operation (x - e is x + (-e)), else
 * -1; *op and *negate say how. lhs and the operand are the elements themselves (locals:
 * the elements that replace them). */
static int accumulated(const sj_model *m, const sj_expr *lhs, const sj_expr *rhs, sj_red_op *op,
                       int *negate) {
  int two = rhs->kind == SJ_E_BINARY || (rhs->kind == SJ_E_CALL && rhs->nargs == 2);
  if (!two || rhs->type != lhs->type) return -1;
  if (rhs->kind == SJ_E_CALL && (rhs->op < SJ_FN_FMIN || rhs->op > SJ_FN_FMAXF)) return -1;
  if (rhs->kind == SJ_E_CALL) {
    *op = rhs->op <= SJ_FN_FMINF ? SJ_RED_MIN : SJ_RED_MAX;
  } else {
    switch (rhs->op) {
    case SJ_OP_ADD:
    case SJ_OP_SUB:
      *op = SJ_RED_ADD;
      break;
    case SJ_OP_MUL:
      *op = SJ_RED_MUL;
      break;
    case SJ_OP_BAND:
      *op = SJ_RED_AND;
      break;
    case SJ_OP_BOR:
      *op = SJ_RED_OR;
      break;
    case SJ_OP_XOR:
      *op = SJ_RED_XOR;
      break;
    default:
      return -1;
    }
  }
  *negate = rhs->kind == SJ_E_BINARY && rhs->op == SJ_OP_SUB;
  for (int k = 0; k < 2; k++) {
    const sj_expr *a = rhs->args[k], *mem = a ? sj_model_replaced(m, a) : NULL;
    if (mem) a = mem;
    if (a && a->kind == SJ_E_INDEX && a->sym == lhs->sym && (k == 0 || !*negate)) return k;
  }
  return -1;
}

static const sj_access *access_of(const sj_model *m, const sj_expr *ref, int is_write) {
  for (int i = 0; i < m->naccesses; i++)
    if (m->accesses[i].ref == ref && m->accesses[i].is_write == is_write) return &m->accesses[i];
  return NULL;
}

/* The original schedule of s as one map; NULL when s never runs (no map to extract). */
static __isl_give isl_map *order_of(__isl_keep isl_union_map *order, const sj_pstmt *s) {
  if (isl_set_is_empty(s->domain) != isl_bool_false) return NULL;
  return isl_map_from_union_map(isl_union_map_intersect_domain(
      isl_union_map_copy(order), isl_union_set_from_set(isl_set_copy(s->domain))));
}

/* The first p dimensions of the schedule o; NULL when it has fewer. */
static __isl_give isl_map *prefix(__isl_take isl_map *o, int p) {
  isl_size n = o ? isl_map_dim(o, isl_dim_out) : -1;
  if (n < p) return isl_map_free(o);
  return isl_map_project_out(o, isl_dim_out, p, n - p);
}

/* The dimension of the schedule o that is iterator d, or its opposite (a loop counting down),
 * or -1. */
static int loop_dim(__isl_keep isl_map *o, int d) {
  isl_size n = o ? isl_map_dim(o, isl_dim_out) : -1;
  for (int p = 0; p < n; p++)
    for (int down = 0; down < 2; down++) {
      isl_map *eq = isl_map_universe(isl_map_get_space(o));
      eq = down ? isl_map_oppose(eq, isl_dim_in, d, isl_dim_out, p)
                : isl_map_equate(eq, isl_dim_in, d, isl_dim_out, p);
      isl_bool is = isl_map_is_subset(o, eq);
      isl_map_free(eq);
      if (is == isl_bool_true) return p;
    }
  return -1;
}

/* Whether some access of the model other than w, r and keep touches, in one run of loop d of
 * w's statement (the instances whose original schedule agrees up to that loop), an element
 * that w writes there. -1 when isl fails. */
static int touched(const sj_model *m, __isl_keep isl_union_map *order, const sj_access *w,
                   const sj_access *r, const sj_access *keep, int d) {
  isl_map *o = order_of(order, w->stmt);
  int p = loop_dim(o, d);
  if (p < 0) { /* no schedule dimension of its own: taken as touched, no reduction */
    isl_map_free(o);
    return 1;
  }
  isl_map *run = prefix(o, p);
  int found = run ? 0 : -1;
  for (int i = 0; i < m->naccesses && !found; i++) {
    const sj_access *a = &m->accesses[i];
    if (a == w || a == r || a == keep || a->ref->sym != w->ref->sym) continue;
    isl_map *other = prefix(order_of(order, a->stmt), p);
    if (!other) continue; /* not as deep: outside the loop */
    isl_map *both = isl_map_apply_range(isl_map_copy(run), isl_map_reverse(other));
    isl_map *same =
        isl_map_apply_range(isl_map_copy(w->rel), isl_map_reverse(isl_map_copy(a->rel)));
    both = isl_map_intersect(both, same);
    isl_bool empty = isl_map_is_empty(both);
    isl_map_free(both);
    found = empty == isl_bool_false ? 1 : empty < 0 ? -1 : 0;
  }
  isl_map_free(run);
  return found;
}

/* Whether w writes one element at several values of loop d, the other loops fixed. */
static isl_bool accumulates(const sj_access *w, int d) {
  isl_map *same = isl_map_apply_range(isl_map_copy(w->rel), isl_map_reverse(isl_map_copy(w->rel)));
  for (int k = 0; k < w->stmt->depth; k++)
    if (k != d) same = isl_map_equate(same, isl_dim_in, k, isl_dim_out, k);
  same = isl_map_order_lt(same, isl_dim_in, d, isl_dim_out, d);
  isl_bool empty = isl_map_is_empty(same);
  isl_map_free(same);
  return empty < 0 ? isl_bool_error : empty ? isl_bool_false : isl_bool_true;
}

/* Whether e names the symbol x (an array or a local) anywhere. */
static int names(const sj_expr *e, const sj_sym *x) {
  if (e->sym == x) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (names(e->args[i], x)) return 1;
  return 0;
}

/* Sets r->acc, and r->guard and r->keep where st is x = g ? acc : x (or x = g ? x : acc) with
 * g not reading x: the terms where g fails are the operation's identity. 0 where st has a guard
 * that reads x, or whose kept value is no access of x. */
static int guarded(const sj_model *m, const sj_stmt *st, sj_reduction *r) {
  const sj_expr *c = st->rhs;
  if (c->kind != SJ_E_COND) return 1;
  int k = sj_expr_same(c->args[2], st->lhs) ? 2 : sj_expr_same(c->args[1], st->lhs) ? 1 : 0;
  if (!k) return 1;
  if (names(c->args[0], st->lhs->sym)) return 0;
  const sj_expr *kept = c->args[k], *mem = sj_model_replaced(m, kept);
  r->keep = access_of(m, mem ? mem : kept, 0);
  r->acc = c->args[3 - k];
  r->guard = c->args[0];
  r->guard_else = k == 1;
  return r->keep != NULL;
}

/* The binary comparison op with its operands swapped (a < b is b > a). */
static int mirrored(int op) {
  switch (op) {
  case SJ_OP_LT:
    return SJ_OP_GT;
  case SJ_OP_GT:
    return SJ_OP_LT;
  case SJ_OP_LE:
    return SJ_OP_GE;
  case SJ_OP_GE:
    return SJ_OP_LE;
  }
  return -1;
}

/* Whether a statement of m other than assignment b of s reads the local k. */
static int read_elsewhere(const sj_model *m, const sj_pstmt *s, int b, const sj_sym *k) {
  for (int i = 0; i < m->nstmts; i++)
    for (int j = 0; j < m->stmts[i]->nbody; j++) {
      const sj_stmt *st = m->stmts[i]->body[j];
      if ((m->stmts[i] == s && j == b) || (st->kind == SJ_S_ASSIGN && st->lhs->sym == k)) continue;
      const sj_expr *es[] = {st->init, st->cond, st->lhs, st->rhs};
      for (int e = 0; e < 4; e++)
        if (es[e] && names(es[e], k)) return 1;
      if (st->kind != SJ_S_ASSIGN && st->kind != SJ_S_DECL) return 1; /* not looked into */
    }
  return 0;
}

/* The test of a choice: g itself, or where g is the local an `if` on data computes its
 * condition into (jit/ifconv.c), the value set just before and read by this choice only. */
static const sj_expr *guard_test(const sj_model *m, const sj_pstmt *s, int b, const sj_expr *g) {
  if (g->kind != SJ_E_VAR || g->sym->kind != SJ_SYM_LOCAL) return g;
  for (int k = b - 1; k >= 0; k--) {
    const sj_stmt *st = s->body[k];
    const sj_sym *set = st->kind == SJ_S_DECL                                  ? st->sym
                        : st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR ? st->lhs->sym
                                                                               : NULL;
    if (set == g->sym) return st->rhs && !read_elsewhere(m, s, b, g->sym) ? st->rhs : NULL;
  }
  return NULL;
}

/* Sets r where assignment b of s is a floating-point maximum or minimum written as a choice:
 * x = e > x ? e : x (or x < e, >=, and the minimum's < and <=), e not reading x, as
 * `if (d > err) err = d;` becomes. Such a choice takes e where the test holds: NaN terms are
 * ignored, as fmax ignores them; the other way round (x > e ? x : e) a NaN term would win, which
 * depends on the order, and is no reduction. */
static int chosen(const sj_model *m, const sj_pstmt *s, int b, sj_reduction *r) {
  const sj_stmt *st = s->body[b];
  const sj_expr *c = st->rhs, *x = st->lhs;
  if (c->kind != SJ_E_COND || !sj_type_is_float(x->type) || !sj_expr_same(c->args[2], x)) return 0;
  const sj_expr *e = c->args[1], *test = guard_test(m, s, b, c->args[0]), *guard = NULL;
  if (!test) return 0;
  if (test->kind == SJ_E_BINARY && test->op == SJ_OP_AND && !names(test->args[0], x->sym)) {
    guard = test->args[0]; /* an outer if's guard (k && e > x): no term where it fails */
    test = test->args[1];
  }
  if (test->kind != SJ_E_BINARY || names(e, x->sym) || e->type != x->type) return 0;
  int op = -1, at = -1; /* the test as e op x; the position of x in it */
  if (sj_expr_same(test->args[0], e) && sj_expr_same(test->args[1], x))
    op = test->op, at = 1;
  else if (sj_expr_same(test->args[1], e) && sj_expr_same(test->args[0], x))
    op = mirrored(test->op), at = 0;
  if (op != SJ_OP_GT && op != SJ_OP_GE && op != SJ_OP_LT && op != SJ_OP_LE) return 0;
  const sj_expr *kept = c->args[2], *mem = sj_model_replaced(m, kept);
  const sj_expr *tested = test->args[at], *tmem = sj_model_replaced(m, tested);
  const sj_access *read = access_of(m, mem ? mem : kept, 0);
  const sj_access *keep = access_of(m, tmem ? tmem : tested, 0);
  if (!read || !keep) return 0;
  r->op = op == SJ_OP_GT || op == SJ_OP_GE ? SJ_RED_MAX : SJ_RED_MIN;
  r->chosen = op;
  r->guard = guard;
  r->acc = c;
  r->operand = 1;
  r->read = read;
  r->keep = keep;
  return 1;
}

/* Whether e is a constant of type t. */
static int is_constant(const sj_expr *e, sj_type t) {
  return e->type == t && (e->kind == SJ_E_INT || e->kind == SJ_E_FLOAT);
}

/* The reductions of assignment b of s into *out. *order is the original schedule's map, made
 * when first needed: most statements are no reductions, and most compiles have none. */
static int stmt_reductions(const sj_model *m, isl_union_map **order, const sj_pstmt *s, int b,
                           sj_reduction **out, int *n) {
  const sj_stmt *st = s->body[b];
  if (st->kind != SJ_S_ASSIGN) return 0;
  const sj_expr *lhs = sj_model_replaced(m, st->lhs);
  if (!lhs) lhs = st->lhs;
  sj_reduction r = {s, b, 0, SJ_RED_ADD, 0, 0, NULL, NULL, st->rhs, NULL, 0, NULL, 0};
  if (lhs->kind != SJ_E_INDEX) return 0;
  if (!chosen(m, s, b, &r)) {
    if (!guarded(m, st, &r)) return 0;
    if (r.guard && is_constant(r.acc, lhs->type)) { /* set where the guard holds */
      r.op = SJ_RED_SET;
      r.read = r.keep;
    } else {
      r.operand = accumulated(m, lhs, r.acc, &r.op, &r.negate);
      if (r.operand < 0) return 0;
      const sj_expr *x = r.acc->args[r.operand], *mem = sj_model_replaced(m, x);
      r.read = access_of(m, mem ? mem : x, 0);
      r.operand = 1 - r.operand; /* from here on: e's position */
    }
  }
  if (isl_set_is_empty(s->domain) == isl_bool_true) return 0; /* it never runs */
  r.write = access_of(m, lhs, 1);
  if (!r.write || !r.read || isl_map_is_equal(r.write->rel, r.read->rel) != isl_bool_true) return 0;
  if ((r.guard || r.chosen) && isl_map_is_equal(r.write->rel, r.keep->rel) != isl_bool_true)
    return 0;
  for (int d = 0; d < s->depth; d++) {
    isl_bool acc = accumulates(r.write, d);
    if (acc == isl_bool_true && !*order && !(*order = isl_schedule_get_map(m->original))) return -1;
    int other = acc == isl_bool_true ? touched(m, *order, r.write, r.read, r.keep, d) : 0;
    if (acc < 0 || other < 0) return -1;
    if (acc != isl_bool_true || other) continue;
    sj_reduction *grown = realloc(*out, (size_t)(*n + 1) * sizeof **out);
    if (!grown) return JIT_ERR_NOMEM;
    *out = grown;
    r.loop = d;
    (*out)[(*n)++] = r;
  }
  return 0;
}

int sj_reductions_find(const sj_model *m, sj_reduction **out, int *n) {
  isl_union_map *order = NULL;
  int rc = 0;
  *out = NULL;
  *n = 0;
  for (int i = 0; i < m->nstmts && !rc; i++)
    for (int b = 0; b < m->stmts[i]->nbody && !rc; b++)
      rc = stmt_reductions(m, &order, m->stmts[i], b, out, n);
  isl_union_map_free(order);
  return rc;
}

/* The signs a zero value of e may have (ZERO_POS, ZERO_NEG), in round-to-nearest; a local
 * private to the statement, as the assignment before `at` in body sets it. */
enum { ZERO_POS = 1, ZERO_NEG = 2, ZERO_ANY = 3 };
static int zero_signs(const sj_pstmt *s, int at, const sj_expr *e, int depth) {
  if (depth > 16) return ZERO_ANY;
  const sj_expr *a = e->nargs > 0 ? e->args[0] : NULL, *b = e->nargs > 1 ? e->args[1] : NULL;
  switch (e->kind) {
  case SJ_E_FLOAT:
    return e->fval != 0 ? 0 : signbit(e->fval) ? ZERO_NEG : ZERO_POS;
  case SJ_E_INT:
    return e->ival ? 0 : ZERO_POS;
  case SJ_E_CAST: /* an integer's zero is +0; a float's keeps its sign, but a double that
                     rounds to a float's zero takes the sign of any tiny value */
    if (sj_type_is_integer(a->type)) return ZERO_POS;
    return e->type == SJ_TY_FLOAT && a->type != SJ_TY_FLOAT ? ZERO_ANY
                                                            : zero_signs(s, at, a, depth + 1);
  case SJ_E_UNARY: {
    int z = e->op == '-' ? zero_signs(s, at, a, depth + 1) : ZERO_ANY;
    return e->op == '-' ? (z & ZERO_POS ? ZERO_NEG : 0) | (z & ZERO_NEG ? ZERO_POS : 0) : z;
  }
  case SJ_E_BINARY:
    if (e->op == SJ_OP_MUL && sj_expr_same(a, b)) return ZERO_POS; /* a square */
    if (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB) { /* -0 only from -0 + -0 (or -0 - +0) */
      int za = zero_signs(s, at, a, depth + 1), zb = zero_signs(s, at, b, depth + 1);
      if (e->op == SJ_OP_SUB) zb = (zb & ZERO_POS ? ZERO_NEG : 0) | (zb & ZERO_NEG ? ZERO_POS : 0);
      return ZERO_POS | (za & zb & ZERO_NEG);
    }
    return ZERO_ANY;
  case SJ_E_COND: /* either value (a guarded local keeps its earlier one) */
    return zero_signs(s, at, b, depth + 1) | zero_signs(s, at, e->args[2], depth + 1);
  case SJ_E_CALL:
    switch (e->op) {
    case SJ_FN_FABS:
    case SJ_FN_FABSF:
    case SJ_FN_EXP:
    case SJ_FN_EXPF:
    case SJ_FN_EXP2:
    case SJ_FN_EXP2F:
      return ZERO_POS;
    case SJ_FN_SQRT:
    case SJ_FN_SQRTF:
      return zero_signs(s, at, a, depth + 1);
    case SJ_FN_FMAX:
    case SJ_FN_FMAXF:
    case SJ_FN_FMIN:
    case SJ_FN_FMINF:
      return zero_signs(s, at, a, depth + 1) | zero_signs(s, at, b, depth + 1);
    default:
      return ZERO_ANY;
    }
  case SJ_E_VAR: /* set once before, in the statement */
    for (int k = at - 1; k >= 0; k--) {
      const sj_stmt *st = s->body[k];
      const sj_sym *set = st->kind == SJ_S_DECL                                  ? st->sym
                          : st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR ? st->lhs->sym
                                                                                 : NULL;
      if (set == e->sym) return st->rhs ? zero_signs(s, k, st->rhs, depth + 1) : ZERO_ANY;
    }
    return ZERO_ANY;
  default:
    return ZERO_ANY;
  }
}

/* Whether r gives the same bits in any order. Integers and a constant set: always. fmax (fmin):
 * where no term is -0.0 (+0.0) and the element is the first operand: the terms' largest is then one
 * value whatever the order (NaNs are ignored), and its combination with the element as C's is, the
 * element first (a zero of each sign compares equal, and fmax returns its second operand). A
 * choice (x = e > x ? e : x) replaces the element as C's test would, whatever its value: its
 * terms only must not tie as zeros of both signs. */
static int exact_in_any_order(const sj_reduction *r) {
  const sj_stmt *st = r->stmt->body[r->body];
  if (sj_type_is_integer(st->lhs->type) || r->op == SJ_RED_SET) return 1;
  if ((r->op != SJ_RED_MAX && r->op != SJ_RED_MIN) || r->operand != 1) return 0;
  int z = zero_signs(r->stmt, r->body, r->acc->args[1], 0);
  if (r->chosen) return z != ZERO_ANY; /* the element goes by the test; terms tie in one sign */
  return !(z & (r->op == SJ_RED_MAX ? ZERO_NEG : ZERO_POS));
}

void sj_reductions_exact(sj_reduction *r, int *n) {
  int kept = 0;
  for (int i = 0; i < *n; i++)
    if (exact_in_any_order(&r[i])) r[kept++] = r[i];
  *n = kept;
}

int sj_reductions_explain(const sj_model *m, sj_buf *note) {
  sj_reduction *r;
  int n;
  if (sj_reductions_find(m, &r, &n)) {
    free(r);
    return -1;
  }
  for (int i = 0; i < n; i++)
    sj_buf_printf(note, "%s%s over loop '%s' (%s)", i ? ", " : "",
                  r[i].stmt->body[r[i].body]->lhs->sym->name, r[i].stmt->iters[r[i].loop]->name,
                  r[i].stmt->name);
  free(r);
  return 0;
}

int sj_reduce_uniform(__isl_keep isl_schedule_node *band, int x, const sj_reduction *r) {
  isl_union_map *sched =
      isl_union_map_flat_range_product(isl_schedule_node_get_prefix_schedule_union_map(band),
                                       isl_schedule_node_band_get_partial_schedule_union_map(band));
  int at = isl_schedule_node_get_schedule_depth(band) + x;
  sched =
      isl_union_map_intersect_domain(sched, isl_union_set_from_set(isl_set_copy(r->stmt->domain)));
  isl_map *s = isl_map_from_union_map(sched);
  s = isl_map_project_out(s, isl_dim_out, at, 1);
  /* the instances that agree with each one on everything but member x */
  isl_map *back = isl_map_reverse(isl_map_copy(s));
  isl_map *same = isl_map_apply_range(s, back);
  isl_map *targets = isl_map_apply_range(same, isl_map_copy(r->write->rel));
  isl_bool one = isl_map_is_single_valued(targets);
  isl_map_free(targets);
  return one < 0 ? -1 : one == isl_bool_true;
}
