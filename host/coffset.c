/* Array offsets in the C printer: the linear form of each access split at the innermost
 * loop, its invariant part hoisted before the loop, and pointer loops where every access
 * moves by a constant stride. */
#include "host/cgen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"

/* Whether e uses the loop iterator id (named c<depth> by isl). */
static int mentions(__isl_keep isl_ast_expr *e, __isl_keep isl_id *id) {
  return sj_ast_mentions(e, atoi(isl_id_get_name(id) + 1));
}

int sj_cg_iter_arg(const sj_pstmt *s, const sj_sym *iter) {
  for (int k = 0; k < s->depth; k++)
    if (s->iters[k] == iter) return k + 1;
  return -1;
}

typedef struct dep_query {
  const cgen *g;
  isl_id *inner;
} dep_query;

static int varies(const sj_sym *iter, void *user) {
  dep_query *q = user;
  isl_ast_expr *arg = isl_ast_expr_op_get_arg(q->g->call, sj_cg_iter_arg(q->g->stmt, iter));
  int yes = mentions(arg, q->inner);
  isl_ast_expr_free(arg);
  return yes;
}

/* Whether the value of iterator atom is the loop iterator inner plus a constant *k. */
/* The coefficient of inner in the sum e when e is linear in it (0 if e is free of it), or
 * -1 when inner occurs in e otherwise (under a division, a min, ...). */
static long inner_coefficient(__isl_keep isl_ast_expr *e, __isl_keep isl_id *inner) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) return mentions(e, inner);
  if (!mentions(e, inner)) return 0;
  enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(e);
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0);
  isl_ast_expr *b = isl_ast_expr_op_get_n_arg(e) > 1 ? isl_ast_expr_op_get_arg(e, 1) : NULL;
  long ca = inner_coefficient(a, inner), cb = b ? inner_coefficient(b, inner) : 0, c = -1;
  if (ca >= 0 && cb >= 0) {
    if (op == isl_ast_expr_op_add) c = ca + cb;
    if (op == isl_ast_expr_op_sub && cb == 0) c = ca; /* keep coefficients positive */
    if (op == isl_ast_expr_op_mul && isl_ast_expr_get_type(a) == isl_ast_expr_int) {
      isl_val *v = isl_ast_expr_get_val(a);
      long k = isl_val_get_num_si(v);
      isl_val_free(v);
      c = k > 0 ? k * cb : -1;
    }
  }
  isl_ast_expr_free(a);
  isl_ast_expr_free(b);
  return c;
}

/* The iterator atom's value as coefficient * inner + rest, rest free of inner: prints rest
 * (terms of the sum without inner) when print is set. Returns the coefficient, or 0 when
 * the atom is not such an iterator. */
static long split_iterator(cgen *g, const sj_expr *atom, isl_id *inner) {
  if (atom->kind != SJ_E_VAR || atom->sym->kind != SJ_SYM_ITER) return 0;
  isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, sj_cg_iter_arg(g->stmt, atom->sym));
  long c = inner_coefficient(arg, inner);
  isl_ast_expr_free(arg);
  return c > 0 ? c : 0;
}

/* Prints the terms of the sum e that do not involve inner, as a long. */
static void print_rest(cgen *g, __isl_keep isl_ast_expr *e, __isl_keep isl_id *inner, int sign) {
  enum isl_ast_expr_op_type op = isl_ast_expr_get_type(e) == isl_ast_expr_op
                                     ? isl_ast_expr_op_get_type(e)
                                     : isl_ast_expr_op_error;
  if (op == isl_ast_expr_op_add || op == isl_ast_expr_op_sub) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0), *b = isl_ast_expr_op_get_arg(e, 1);
    print_rest(g, a, inner, sign);
    print_rest(g, b, inner, op == isl_ast_expr_op_sub ? -sign : sign);
    isl_ast_expr_free(a);
    isl_ast_expr_free(b);
    return;
  }
  if (mentions(e, inner)) return;
  sj_buf_puts(&g->out, sign > 0 ? " + " : " - ");
  sj_cg_iexpr(g, e);
}

/* The terms of ref's offset that vary with inner (part = 1) or not (part = 0); inner NULL
 * prints them all. An iterator whose value is a * inner + rest contributes coef * a * inner
 * to the varying part and coef * rest to the invariant one, so the subscript in the loop
 * is just a sum. */
static void offset_terms(cgen *g, const sj_expr *ref, isl_id *inner, int part) {
  sj_linear lin;
  sj_linearize(ref, g->m->extents[ref->sym->id], g->m->shape, &lin);
  dep_query q = {g, inner};
  if (part == 0 || !inner) sj_buf_printf(&g->out, "%ldL", lin.constant);
  for (int i = 0; i < lin.n; i++) {
    const sj_term *t = &lin.terms[i];
    long a = inner ? split_iterator(g, t->atom, inner) : 0;
    if (a) {
      if (part == 1) {
        sj_buf_printf(&g->out, " + %ldL * __sj_%s", t->coef * a, isl_id_get_name(inner));
      } else {
        isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, sj_cg_iter_arg(g->stmt, t->atom->sym));
        sj_buf_printf(&g->out, " + %ldL * (0L", t->coef);
        print_rest(g, arg, inner, 1);
        sj_buf_puts(&g->out, ")");
        isl_ast_expr_free(arg);
      }
      continue;
    }
    if (inner && sj_expr_depends(t->atom, varies, &q) != part) continue;
    if (t->coef == 1)
      sj_buf_puts(&g->out, " + (long)");
    else
      sj_buf_printf(&g->out, " + %ldL * (long)", t->coef);
    sj_cg_uexpr(g, t->atom);
  }
  sj_linear_free(&lin);
}

static const hoisted *find_hoisted(const cgen *g, const sj_expr *ref) {
  for (int i = g->nhoist - 1; i >= 0; i--)
    if (g->hoist[i].call == g->call && g->hoist[i].ref == ref) return &g->hoist[i];
  return NULL;
}

/* The stride of ref along inner: the coefficients of its terms that are inner plus a
 * constant. *ok becomes 0 when another term varies with inner. */
static long access_stride(cgen *g, const sj_expr *ref, isl_id *inner, int *ok) {
  sj_linear lin;
  sj_linearize(ref, g->m->extents[ref->sym->id], g->m->shape, &lin);
  dep_query q = {g, inner};
  long stride = 0, a;
  for (int i = 0; i < lin.n; i++) {
    if ((a = split_iterator(g, lin.terms[i].atom, inner)))
      stride += lin.terms[i].coef * a;
    else if (sj_expr_depends(lin.terms[i].atom, varies, &q))
      *ok = 0;
  }
  sj_linear_free(&lin);
  return stride;
}

static void hoist_refs(cgen *g, const sj_expr *e, isl_id *inner) {
  if (e->kind == SJ_E_INDEX) {
    g->hoist = realloc(g->hoist, (g->nhoist + 1) * sizeof *g->hoist);
    hoisted *h = &g->hoist[g->nhoist++];
    int steady = 1;
    long stride = access_stride(g, e, inner, &steady);
    if (!steady) g->ptr.count = -1; /* an access moves irregularly: no pointer loop */
    *h = (hoisted){g->call, e, inner, g->nvars++, stride, 0, 0, 0, NULL};
    h->owner = h->var;
    sj_buf_printf(&g->out, "%*sconst long __sj_o%d = ", 2 * g->indent, "", h->var);
    size_t at = g->out.len;
    offset_terms(g, e, inner, 0); /* its constant first, then the rest */
    char *rest;
    h->constant = strtol(g->out.data + at, &rest, 10);
    h->rest = strdup(rest);
    sj_buf_puts(&g->out, ";\n");
    for (int i = g->ptr.first; inner && i < g->nhoist - 1; i++) {
      const hoisted *o = &g->hoist[i];
      if (o->owner == o->var && o->ref->sym == e->sym && o->stride == stride &&
          !strcmp(o->rest, h->rest)) {
        h->owner = o->var;
        h->delta = h->constant - o->constant;
        break;
      }
    }
  }
  for (int i = 0; i < e->nargs; i++) hoist_refs(g, e->args[i], inner);
}

typedef struct hoist_scan {
  cgen *g;
  isl_id *inner;
  int inner_loop;
} hoist_scan;

static isl_bool scan_user(__isl_keep isl_ast_node *node, void *user) {
  hoist_scan *h = user;
  if (isl_ast_node_get_type(node) == isl_ast_node_for) h->inner_loop = 1;
  if (isl_ast_node_get_type(node) != isl_ast_node_user || !h->inner) return isl_bool_true;
  cgen *g = h->g;
  g->call = isl_ast_node_user_get_expr(node);
  g->stmt = g->m->stmts[sj_ast_call_stmt(g->call)];
  for (int k = 0; k < g->stmt->nbody; k++) {
    const sj_stmt *st = g->stmt->body[k];
    if (st->lhs) hoist_refs(g, st->lhs, h->inner);
    if (st->rhs) hoist_refs(g, st->rhs, h->inner);
  }
  isl_ast_expr_free(g->call); /* the node keeps it alive: pointers stay valid */
  g->call = NULL;
  return isl_bool_false;
}

/* Before an innermost loop: the invariant part of every access offset inside it. */
/* Returns whether the loop is innermost and all its accesses move by constant strides. */
int sj_cg_hoist_loop(cgen *g, __isl_keep isl_ast_node *loop, __isl_keep isl_id *iter) {
  isl_ast_node *body = isl_ast_node_for_get_body(loop);
  hoist_scan h = {g, NULL, 0};
  isl_ast_node_foreach_descendant_top_down(body, scan_user, &h);
  g->ptr.first = g->nhoist;
  g->ptr.count = 0;
  if (!h.inner_loop) {
    h.inner = iter;
    isl_ast_node_foreach_descendant_top_down(body, scan_user, &h);
  }
  isl_ast_node_free(body);
  if (h.inner_loop || g->ptr.count < 0) return 0;
  g->ptr.count = g->nhoist - g->ptr.first;
  for (int i = g->ptr.first; i < g->nhoist; i++)
    if (g->hoist[i].stride) return 1;
  return 0; /* nothing moves: no pointer to advance */
}

/* ref's element: a[offset], or p[constant] in a pointer loop. */
void sj_cg_print_element(cgen *g, const sj_expr *ref) {
  const hoisted *h = find_hoisted(g, ref);
  if (h && h->stride && g->ptr.active) {
    sj_buf_printf(&g->out, "__sj_p%d[%ld]", h->owner,
                  (g->ptr.copy % UNROLL) * h->stride * g->ptr.step + h->delta);
    return;
  }
  sj_buf_printf(&g->out, "__sj_a%d[", ref->sym->id);
  if (!h) {
    offset_terms(g, ref, NULL, 0);
  } else {
    sj_buf_printf(&g->out, "__sj_o%d", h->var);
    offset_terms(g, ref, h->inner, 1);
  }
  sj_buf_puts(&g->out, "]");
}
