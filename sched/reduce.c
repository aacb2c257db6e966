/* Reductions: a statement that accumulates into one array element over a loop,
 *   x[f] = x[f] op e   (op: + - * fmin fmax; the subscripts f do not involve the loop),
 * where nothing else in one run of that loop touches the elements accumulated there (no
 * other access of the statement, no other statement inside the loop), so that the values e
 * take do not depend on the order of the accumulation. Such a loop could run in any order
 * (a tree of partial results): integers would give the same result, floats would round
 * differently. Nothing is reassociated: every reduction keeps the C order, bit-exact, and the
 * explanation lists the ones found (where a parallel reduction would apply). */
#include "sched/sched.h"

#include <isl/map.h>
#include <isl/space.h>
#include <isl/union_map.h>

#include "base/buf.h"

/* The read of the accumulated element in rhs when rhs combines it with one other operand
 * by an associative and commutative operation (x - e is x + (-e)), else NULL. */
static const sj_expr *accumulated(const sj_expr *lhs, const sj_expr *rhs) {
  int two = rhs->kind == SJ_E_BINARY || (rhs->kind == SJ_E_CALL && rhs->nargs == 2);
  const sj_expr *a = two ? rhs->args[0] : NULL, *b = two ? rhs->args[1] : NULL;
  int assoc = (rhs->kind == SJ_E_BINARY && (rhs->op == SJ_OP_ADD || rhs->op == SJ_OP_MUL)) ||
              (rhs->kind == SJ_E_CALL && rhs->op >= SJ_FN_FMIN && rhs->op <= SJ_FN_FMAXF);
  int same_a = a && a->kind == SJ_E_INDEX && a->sym == lhs->sym;
  int same_b = b && b->kind == SJ_E_INDEX && b->sym == lhs->sym;
  if (rhs->kind == SJ_E_BINARY && rhs->op == SJ_OP_SUB) return same_a ? a : NULL;
  if (!assoc) return NULL;
  return same_a ? a : same_b ? b : NULL;
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

/* The dimension of the schedule o that is iterator d, or -1. */
static int loop_dim(__isl_keep isl_map *o, int d) {
  isl_size n = o ? isl_map_dim(o, isl_dim_out) : -1;
  for (int p = 0; p < n; p++) {
    isl_map *eq =
        isl_map_equate(isl_map_universe(isl_map_get_space(o)), isl_dim_in, d, isl_dim_out, p);
    isl_bool is = isl_map_is_subset(o, eq);
    isl_map_free(eq);
    if (is == isl_bool_true) return p;
  }
  return -1;
}

/* Whether some access of the model other than w and r touches, in one run of loop d of
 * w's statement (the instances whose original schedule agrees up to that loop), an element
 * that w writes there. -1 when isl fails. */
static int touched(const sj_model *m, __isl_keep isl_union_map *order, const sj_access *w,
                   const sj_access *r, int d) {
  isl_map *o = order_of(order, w->stmt);
  int p = loop_dim(o, d);
  isl_map *run = p < 0 ? isl_map_free(o) : prefix(o, p);
  int found = run ? 0 : -1;
  for (int i = 0; i < m->naccesses && !found; i++) {
    const sj_access *a = &m->accesses[i];
    if (a == w || a == r || a->ref->sym != w->ref->sym) continue;
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

int sj_reductions_explain(const sj_model *m, sj_buf *note) {
  isl_union_map *order = isl_schedule_get_map(m->original);
  int found = 0, rc = order ? 0 : -1;
  for (int i = 0; i < m->nstmts && !rc; i++) {
    const sj_pstmt *s = m->stmts[i];
    if (isl_set_is_empty(s->domain) == isl_bool_true) continue; /* never runs: no reduction */
    for (int b = 0; b < s->nbody && !rc; b++) {
      const sj_stmt *st = s->body[b];
      const sj_expr *x = st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_INDEX
                             ? accumulated(st->lhs, st->rhs)
                             : NULL;
      const sj_access *w = x ? access_of(m, st->lhs, 1) : NULL, *r = x ? access_of(m, x, 0) : NULL;
      if (!w || !r || isl_map_is_equal(w->rel, r->rel) != isl_bool_true) continue;
      for (int d = 0; d < s->depth && !rc; d++) {
        isl_bool acc = accumulates(w, d);
        int other = acc == isl_bool_true ? touched(m, order, w, r, d) : 0;
        if (acc < 0 || other < 0) rc = -1;
        if (acc != isl_bool_true || other) continue;
        sj_buf_printf(note, "%s%s over loop '%s' (%s)", found++ ? ", " : "", st->lhs->sym->name,
                      s->iters[d]->name, s->name);
      }
    }
  }
  isl_union_map_free(order);
  return rc;
}
