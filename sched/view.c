/* Flat arrays seen in rows. C code often indexes a flat array by hand, A[i * M + j] or
 * A[(t % 2) * N * M + i * M + j]. In one dimension isl finds the dependences only through
 * quasi-affine wraps (an element's neighbour j - 1 may be the end of the row before), and a
 * tile's box of elements is one long range, too long for shared memory. Where every access of
 * the array reads as an element of row-major rows with every subscript in its range (j - 1 in
 * [0, M) wherever it runs), the model states the accesses in those rows, A[i][j] of [..][M]:
 * the element's address is the same, its dependences are the plain ones and its boxes stage.
 *
 * The rows come from the strides of the terms of the flat indices (the coefficients of i and
 * j: M and 1; of t % 2: N * M): decreasing, each a multiple of the next, the last 1. A term
 * goes to the dimension of its coefficient's magnitude; the constant is split over the
 * dimensions by rounding to the nearest row (-1 is j - 1, -M is i - 1), the last split down
 * where that leaves a subscript out of range (A[2 * i + 1]: A[i][1] of [..][2]). isl checks the
 * ranges. */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>

#include "base/buf.h"
#include "sched/affine.h"
#include "sched/linear.h"
#include "sched/locals.h"
#include "stenciljit.h"

enum { MAX_RANK = 8 };

typedef struct rows {
  int rank;
  long stride[MAX_RANK]; /* elements between neighbours along each dimension, outermost first */
  long ext[MAX_RANK];
} rows;

/* The rows of the terms of lin[0..n): 0 when their strides do not chain or make one
 * dimension. */
static int rows_of(const sj_linear *lin, int n, long elems, rows *r) {
  r->rank = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < lin[i].n; k++) {
      long c = labs(lin[i].terms[k].coef);
      int at = 0;
      while (at < r->rank && r->stride[at] > c) at++;
      if (at < r->rank && r->stride[at] == c) continue;
      if (r->rank == MAX_RANK) return 0;
      memmove(r->stride + at + 1, r->stride + at, (size_t)(r->rank - at) * sizeof *r->stride);
      r->stride[at] = c;
      r->rank++;
    }
  if (r->rank && r->stride[r->rank - 1] != 1) {
    if (r->rank == MAX_RANK) return 0;
    r->stride[r->rank++] = 1;
  }
  if (r->rank < 2) return 0;
  for (int k = 0; k + 1 < r->rank; k++)
    if (r->stride[k] % r->stride[k + 1]) return 0;
  r->ext[0] = (elems + r->stride[0] - 1) / r->stride[0];
  for (int k = 1; k < r->rank; k++) r->ext[k] = r->stride[k - 1] / r->stride[k];
  return 1;
}

static sj_expr *as_long(sj_model *m, const sj_expr *e) {
  if (e->type == SJ_TY_LONG) return (sj_expr *)e;
  sj_expr *c = sj_model_expr(m, SJ_E_CAST, SJ_TY_LONG, e->loc, 1);
  c->implicit = 1;
  c->args[0] = (sj_expr *)e;
  return c;
}

static sj_expr *binary(sj_model *m, int op, sj_expr *a, sj_expr *b) {
  sj_expr *e = sj_model_expr(m, SJ_E_BINARY, SJ_TY_LONG, a->loc, 2);
  e->op = op;
  e->args[0] = a;
  e->args[1] = b;
  return e;
}

/* Subscript d of the flat index lin in rows r: its terms, plus off. */
static sj_expr *subscript(sj_model *m, const sj_linear *lin, const rows *r, int d, long off,
                          sj_loc loc) {
  sj_expr *e = NULL;
  for (int k = 0; k < lin->n; k++) {
    long c = lin->terms[k].coef;
    if (labs(c) != r->stride[d]) continue;
    sj_expr *x = as_long(m, lin->terms[k].atom);
    if (e)
      e = binary(m, c > 0 ? SJ_OP_ADD : SJ_OP_SUB, e, x);
    else if (c > 0)
      e = x;
    else {
      e = sj_model_expr(m, SJ_E_UNARY, SJ_TY_LONG, loc, 1);
      e->op = '-';
      e->args[0] = x;
    }
  }
  if (e && !off) return e;
  sj_expr *k = sj_model_expr(m, SJ_E_INT, SJ_TY_LONG, loc, 0);
  k->ival = off;
  return e ? binary(m, SJ_OP_ADD, e, k) : k;
}

/* The element of view (a symbol of r's rank) that flat index lin of ref is, its constant split
 * to the nearest row, the last split (down) rounded down: a record's field (A[2 * i + 1] is
 * A[i][1]; A[2 * (i - 1) + 1] A[i - 1][1]). */
static sj_expr *view_ref(sj_model *m, sj_sym *view, const sj_expr *ref, const sj_linear *lin,
                         const rows *r, int down) {
  sj_expr *e = sj_model_expr(m, SJ_E_INDEX, ref->type, ref->loc, r->rank);
  e->sym = view;
  long rest = lin->constant;
  for (int d = 0; d < r->rank; d++) {
    long s = r->stride[d], q = d + 1 == r->rank ? rest : 0;
    if (d + 1 < r->rank) {
      long half = down && d + 2 == r->rank ? 0 : s / 2;
      q = rest + half >= 0 ? (rest + half) / s : -((s - 1 - half - rest) / s);
    }
    rest -= q * s;
    e->args[d] = subscript(m, lin, r, d, q, ref->loc);
  }
  return e;
}

/* acc's relation with ref for its element, where every subscript stays in r's extents; NULL
 * where one leaves them or is not affine. */
static __isl_give isl_map *view_rel(const sj_model *m, int *iter_pos, const sj_access *acc,
                                    const sj_expr *ref, const rows *r) {
  const sj_pstmt *s = acc->stmt;
  for (int k = 0; k < s->depth; k++) iter_pos[s->iters[k]->id] = k;
  sj_error quiet = {0, {0}};
  isl_set *dom = isl_map_domain(isl_map_copy(acc->rel));
  sj_affine_env env = {m->shape, iter_pos, "an index", m->source_name, &quiet, 0, 1, dom};
  isl_space *space = isl_set_get_space(dom);
  isl_pw_aff_list *index = isl_pw_aff_list_alloc(m->ctx, r->rank);
  for (int d = 0; d < r->rank && !env.failed; d++)
    index = isl_pw_aff_list_add(index, sj_affine(&env, ref->args[d], space));
  for (int k = 0; k < s->depth; k++) iter_pos[s->iters[k]->id] = -1;
  if (env.failed || !index) {
    isl_pw_aff_list_free(index);
    isl_space_free(space);
    isl_set_free(dom);
    return NULL;
  }
  isl_space *map_space =
      isl_space_map_from_domain_and_range(space, isl_space_set_alloc(m->ctx, 0, r->rank));
  isl_map *rel = sj_index_relation(map_space, index);
  rel = isl_map_set_tuple_name(rel, isl_dim_out, ref->sym->name);
  rel = isl_map_intersect_domain(rel, dom);
  isl_set *out = sj_outside_extents(isl_map_range(isl_map_copy(rel)), r->rank, r->ext);
  isl_bool inside = isl_set_is_empty(out);
  isl_set_free(out);
  if (inside != isl_bool_true) rel = isl_map_free(rel);
  return rel;
}

/* One access's view: its reference, relation and rounding. */
typedef struct seen {
  const sj_expr *node; /* the access's reference */
  const isl_map *was;  /* its relation before, which an access again shares */
  const sj_expr *repl;
  isl_map *rel;
  int down;
} seen;

static int by_node(const void *a, const void *b) {
  const seen *x = a, *y = b;
  return x->node < y->node ? -1 : x->node > y->node;
}

/* The view of array a's n accesses (their indices lin) into got[0..n); 0 when some access has
 * none, or a reference in two places would need two roundings (it gets one replacement). */
static int view_accesses(sj_model *m, int *iter_pos, const sj_sym *a, sj_sym *view,
                         const sj_linear *lin, int n, const rows *r, seen *got) {
  for (int i = 0, k = 0; i < m->naccesses; i++) {
    const sj_access *acc = &m->accesses[i];
    if (acc->ref->sym != a) continue;
    seen *g = &got[k];
    g->node = acc->ref;
    g->was = acc->rel;
    for (int j = k - 1; acc->again && j >= 0 && !g->rel; j--)
      if (got[j].was == acc->rel) { /* the same reference again: its relation and rounding */
        g->down = got[j].down;
        g->repl = got[j].node == acc->ref ? got[j].repl
                                          : view_ref(m, view, acc->ref, &lin[k], r, g->down);
        g->rel = isl_map_copy(got[j].rel);
      }
    for (int down = 0; down < 2 && !g->rel; down++) {
      g->down = down;
      g->repl = view_ref(m, view, acc->ref, &lin[k], r, down);
      g->rel = view_rel(m, iter_pos, acc, g->repl, r);
    }
    if (!g->rel) return 0;
    k++;
  }
  seen *sorted = malloc(((size_t)n + 1) * sizeof *sorted);
  if (!sorted) return 0;
  memcpy(sorted, got, (size_t)n * sizeof *got);
  qsort(sorted, (size_t)n, sizeof *sorted, by_node);
  int agree = 1;
  for (int k = 1; k < n && agree; k++)
    agree = sorted[k].node != sorted[k - 1].node || sorted[k].down == sorted[k - 1].down;
  free(sorted);
  return agree;
}

/* Sees array a through rows where all its accesses fit them. */
static int view_array(sj_model *m, int *iter_pos, const sj_sym *a, sj_buf *why) {
  int n = 0;
  for (int i = 0; i < m->naccesses; i++) n += m->accesses[i].ref->sym == a;
  sj_linear *lin = calloc((size_t)n + 1, sizeof *lin);
  seen *got = calloc((size_t)n + 1, sizeof *got);
  int rc = lin && got ? 0 : -1;
  for (int i = 0, k = 0; !rc && i < m->naccesses; i++)
    if (m->accesses[i].ref->sym == a)
      sj_linearize(m->accesses[i].ref, m->extents[a->id], m->shape, &lin[k++]);
  rows r;
  if (!rc && n && rows_of(lin, n, m->extents[a->id][0], &r)) {
    sj_sym *view = sj_arena_alloc(m->arena, sizeof *view);
    *view = *a;
    view->rank = r.rank;
    view->extents = NULL;
    if (view_accesses(m, iter_pos, a, view, lin, n, &r, got)) {
      sj_replaced *pairs = calloc((size_t)n + 1, sizeof *pairs);
      long *ext = malloc(sizeof r.ext);
      rc = pairs && ext ? 0 : -1;
      for (int i = 0, k = 0; !rc && i < m->naccesses; i++) {
        sj_access *acc = &m->accesses[i];
        if (acc->ref->sym != a) continue;
        pairs[k] = (sj_replaced){acc->ref, got[k].repl};
        acc->ref = got[k].repl;
        isl_map_free(acc->rel);
        acc->rel = got[k].rel;
        got[k++].rel = NULL;
      }
      if (!rc) rc = sj_model_add_replaced(m, pairs, n);
      if (!rc) {
        memcpy(ext, r.ext, sizeof r.ext);
        m->views[a->id] = ext;
        ext = NULL;
        sj_buf_printf(why, "  '%s' (%ld elements) as %s", a->name, m->extents[a->id][0], a->name);
        for (int d = 0; d < r.rank; d++) sj_buf_printf(why, "[%ld]", r.ext[d]);
        sj_buf_puts(why, "\n");
      }
      free(pairs);
      free(ext);
    }
  }
  for (int k = 0; got && k < n; k++) isl_map_free(got[k].rel);
  for (int k = 0; lin && k < n; k++) sj_linear_free(&lin[k]);
  free(got);
  free(lin);
  return rc;
}

int sj_model_view_flat(sj_model *m, sj_error *err) {
  const sj_func *fn = m->fn;
  m->views = calloc((size_t)fn->narrays + 1, sizeof *m->views);
  int *iter_pos = malloc(((size_t)fn->niters + 2) * sizeof *iter_pos);
  sj_buf why = {0};
  int rc = m->views && iter_pos ? 0 : -1;
  for (int i = 0; i < fn->niters + 2 && !rc; i++) iter_pos[i] = -1;
  for (int p = 0; p < fn->nparams && !rc; p++)
    if (fn->params[p]->kind == SJ_SYM_ARRAY && fn->params[p]->rank == 1)
      rc = view_array(m, iter_pos, fn->params[p], &why);
  free(iter_pos);
  m->views_why = why.len && !rc ? sj_buf_take(&why) : NULL;
  sj_buf_free(&why);
  return rc ? sj_error_set(err, JIT_ERR_NOMEM, "out of memory") : 0;
}
