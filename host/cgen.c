/* The C target of the AST walk: the kernel as one C function run by every worker thread.
 *
 * Statement bodies are printed from the typed AST with every conversion explicit and every
 * operation parenthesized, so TinyCC evaluates exactly what the C function evaluates. Shape
 * parameters are printed as constants and arrays get their specialized types, so the body
 * keeps the user's own subscripts: A[(t+1)%2][i][j]. */
#include "host/host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"
#include "jit/buf.h"

/* An access of a statement instance inside an innermost loop: the part of its offset that
 * does not change in the loop is computed once, before it, into __sj_o<var>. */
typedef struct hoisted {
  const isl_ast_expr *call; /* the statement instance */
  const sj_expr *ref;
  isl_id *inner; /* the loop's iterator */
  int var;
  long stride; /* pointer loops: elements the access moves per unit of the iterator */
  /* Accesses whose invariant offsets differ by a constant share one pointer: the one of
   * entry `owner` (its var), at index delta from it. */
  int owner;
  long delta;
  long constant; /* the constant part of the invariant offset */
  char *rest;    /* the rest of it: what sharing compares */
} hoisted;

/* An innermost sequential loop whose accesses all move by constant strides runs on
 * pointers (__sj_p<var>, advanced each iteration) with its body unrolled UNROLL times and
 * a remainder loop: TinyCC keeps no values in registers, so each saved add counts. */
enum { UNROLL = 4 };

typedef struct pointer_loop {
  int active;
  int first, count; /* its accesses in the hoisted table */
  long step;        /* the loop's increment */
  const char *op;   /* "<=" or "<" against __sj_ub_<iterator> */
  char iter[32];    /* the iterator's name */
  int copy;         /* 0 .. UNROLL - 1 in the unrolled loop, UNROLL in the remainder */
} pointer_loop;

typedef struct cgen {
  const sj_model *m;
  sj_buf out;
  int indent;
  const sj_pstmt *stmt; /* the statement instance being printed */
  isl_ast_expr *call;   /* its call: iterator values */
  hoisted *hoist;
  int nhoist, nvars;
  int host; /* GPU host code: statements live in kernels, nothing to hoist */
  pointer_loop ptr;
} cgen;

static void line(cgen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(cgen *g, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  sj_buf_printf(&g->out, "%*s%s\n", 2 * g->indent, "", tmp);
}

/* --- isl AST expressions (loop bounds, iterator values): all integers, as long --- */

static void iexpr(cgen *g, __isl_keep isl_ast_expr *e);

static void iargs(cgen *g, __isl_keep isl_ast_expr *e, const char *sep, int from) {
  int n = isl_ast_expr_op_get_n_arg(e);
  for (int i = from; i < n; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    if (i > from) sj_buf_puts(&g->out, sep);
    iexpr(g, a);
    isl_ast_expr_free(a);
  }
}

static void iexpr(cgen *g, __isl_keep isl_ast_expr *e) {
  sj_buf *b = &g->out;
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int: {
    isl_val *v = isl_ast_expr_get_val(e);
    sj_buf_printf(b, "%ldL", isl_val_get_num_si(v));
    isl_val_free(v);
    return;
  }
  case isl_ast_expr_id: {
    isl_id *id = isl_ast_expr_get_id(e);
    const char *name = isl_id_get_name(id);
    isl_id_free(id);
    int copy = g->ptr.active && !strcmp(name, g->ptr.iter) ? g->ptr.copy % UNROLL : 0;
    if (copy)
      sj_buf_printf(b, "(__sj_%s + %ldL)", name, copy * g->ptr.step);
    else
      sj_buf_printf(b, "__sj_%s", name);
    return;
  }
  default:
    break;
  }
  const char *infix = NULL, *fn = NULL;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and:
  case isl_ast_expr_op_and_then:
    infix = " && ";
    break;
  case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else:
    infix = " || ";
    break;
  case isl_ast_expr_op_add:
    infix = " + ";
    break;
  case isl_ast_expr_op_sub:
    infix = " - ";
    break;
  case isl_ast_expr_op_mul:
    infix = " * ";
    break;
  case isl_ast_expr_op_div:
  case isl_ast_expr_op_pdiv_q:
    infix = " / ";
    break;
  case isl_ast_expr_op_pdiv_r:
  case isl_ast_expr_op_zdiv_r:
    infix = " % ";
    break;
  case isl_ast_expr_op_eq:
    infix = " == ";
    break;
  case isl_ast_expr_op_le:
    infix = " <= ";
    break;
  case isl_ast_expr_op_lt:
    infix = " < ";
    break;
  case isl_ast_expr_op_ge:
    infix = " >= ";
    break;
  case isl_ast_expr_op_gt:
    infix = " > ";
    break;
  case isl_ast_expr_op_max:
    fn = "__sj_max";
    break;
  case isl_ast_expr_op_min:
    fn = "__sj_min";
    break;
  case isl_ast_expr_op_fdiv_q:
    fn = "__sj_floord";
    break;
  case isl_ast_expr_op_minus:
    sj_buf_puts(b, "(-");
    iargs(g, e, "", 0);
    sj_buf_puts(b, ")");
    return;
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select:
    iargs(g, e, "", 0); /* not produced without options */
    return;
  default:
    sj_buf_puts(b, "/* unsupported isl expression */0");
    return;
  }
  if (infix) {
    sj_buf_puts(b, "(");
    iargs(g, e, infix, 0);
    sj_buf_puts(b, ")");
    return;
  }
  /* n-ary min/max nest as binary calls */
  int n = isl_ast_expr_op_get_n_arg(e);
  for (int i = 0; i < n - 1; i++) sj_buf_printf(b, "%s(", fn);
  for (int i = 0; i < n; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    iexpr(g, a);
    isl_ast_expr_free(a);
    sj_buf_puts(b, i == 0 ? (n > 1 ? ", " : "") : (i < n - 1 ? "), " : ")"));
  }
}

/* --- offsets --- */

static void uexpr(cgen *g, const sj_expr *e);

static int mentions(__isl_keep isl_ast_expr *e, __isl_keep isl_id *id) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    isl_id *x = isl_ast_expr_get_id(e);
    isl_id_free(x);
    return x == id;
  }
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return 0;
  int n = isl_ast_expr_op_get_n_arg(e), found = 0;
  for (int i = 0; i < n && !found; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    found = mentions(a, id);
    isl_ast_expr_free(a);
  }
  return found;
}

static int iter_arg(const sj_pstmt *s, const sj_sym *iter) {
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
  isl_ast_expr *arg = isl_ast_expr_op_get_arg(q->g->call, iter_arg(q->g->stmt, iter));
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
  isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, iter_arg(g->stmt, atom->sym));
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
  iexpr(g, e);
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
        isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, iter_arg(g->stmt, t->atom->sym));
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
    uexpr(g, t->atom);
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
static int hoist_loop(cgen *g, __isl_keep isl_ast_node *loop, __isl_keep isl_id *iter) {
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
static void print_element(cgen *g, const sj_expr *ref) {
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

/* --- the user's expressions --- */

static void literal(sj_buf *b, const sj_expr *e) {
  if (e->kind == SJ_E_INT) {
    sj_buf_printf(b, e->ival < 0 ? "(%ld%s)" : "%ld%s", e->ival, e->type == SJ_TY_LONG ? "L" : "");
    return;
  }
  /* hex floats are exact; isinf cannot come from a literal in range, but be safe */
  if (e->type == SJ_TY_FLOAT)
    sj_buf_printf(b, "(%af)", (double)(float)e->fval);
  else
    sj_buf_printf(b, "(%a)", e->fval);
}

static void uexpr(cgen *g, const sj_expr *e) {
  sj_buf *b = &g->out;
  switch (e->kind) {
  case SJ_E_INT:
  case SJ_E_FLOAT:
    literal(b, e);
    return;
  case SJ_E_VAR:
    if (e->sym->kind == SJ_SYM_SHAPE) {
      long v = g->m->shape[e->sym->param];
      sj_buf_printf(b, v < 0 ? "(%ld%s)" : "%ld%s", v, e->type == SJ_TY_LONG ? "L" : "");
    } else if (e->sym->kind == SJ_SYM_ITER) { /* the iterator's value in this instance */
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, iter_arg(g->stmt, e->sym));
      sj_buf_puts(b, "((int)");
      iexpr(g, arg);
      sj_buf_puts(b, ")");
      isl_ast_expr_free(arg);
    } else {
      sj_buf_puts(b, e->sym->name);
    }
    return;
  case SJ_E_INDEX:
    print_element(g, e);
    return;
  case SJ_E_UNARY:
    sj_buf_printf(b, "(%c", e->op);
    uexpr(g, e->args[0]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_BINARY:
    sj_buf_puts(b, "(");
    uexpr(g, e->args[0]);
    sj_buf_printf(b, " %s ", sj_binop_text(e->op));
    uexpr(g, e->args[1]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_COND:
    sj_buf_puts(b, "(");
    uexpr(g, e->args[0]);
    sj_buf_puts(b, " ? ");
    uexpr(g, e->args[1]);
    sj_buf_puts(b, " : ");
    uexpr(g, e->args[2]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_CAST:
    sj_buf_printf(b, "((%s)", sj_type_name(e->type));
    uexpr(g, e->args[0]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_CALL:
    sj_buf_printf(b, "%s(", sj_func_name(e->op));
    for (int k = 0; k < e->nargs; k++) {
      if (k) sj_buf_puts(b, ", ");
      uexpr(g, e->args[k]);
    }
    sj_buf_puts(b, ")");
    return;
  }
}

static void body_stmt(cgen *g, const sj_stmt *st) {
  sj_buf *b = &g->out;
  sj_buf_printf(b, "%*s", 2 * g->indent, "");
  if (st->kind == SJ_S_DECL) {
    sj_buf_printf(b, "%s %s", sj_type_name(st->sym->type), st->sym->name);
    if (st->rhs) {
      sj_buf_puts(b, " = ");
      uexpr(g, st->rhs);
    }
  } else {
    uexpr(g, st->lhs);
    sj_buf_puts(b, " = ");
    uexpr(g, st->rhs);
  }
  sj_buf_puts(b, ";\n");
}

/* --- walk hooks --- */

/* The bound of cond when it has the form `iter < e` or `iter <= e`: printed once. */
static isl_ast_expr *loop_bound(__isl_keep isl_ast_expr *cond, const char **op) {
  if (isl_ast_expr_get_type(cond) != isl_ast_expr_op) return NULL;
  enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(cond);
  if (t != isl_ast_expr_op_le && t != isl_ast_expr_op_lt) return NULL;
  *op = t == isl_ast_expr_op_le ? "<=" : "<";
  return isl_ast_expr_op_get_arg(cond, 1);
}

static int for_begin(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind, int member) {
  cgen *g = t;
  int distributed = kind == SJ_LOOP_DISTRIBUTED;
  (void)member;
  isl_ast_expr *it = isl_ast_node_for_get_iterator(loop);
  isl_ast_expr *init = isl_ast_node_for_get_init(loop);
  isl_ast_expr *cond = isl_ast_node_for_get_cond(loop);
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  isl_id *iter = isl_ast_expr_get_id(it);
  const char *name = isl_id_get_name(iter);
  sj_buf *b = &g->out;
  line(g, "{");
  g->indent++;
  int pointers = !g->host && hoist_loop(g, loop, iter) && kind == SJ_LOOP_SEQUENTIAL &&
                 isl_ast_expr_get_type(inc) == isl_ast_expr_int;
  const char *op = NULL;
  isl_ast_expr *bound = loop_bound(cond, &op);
  if (bound) {
    sj_buf_printf(b, "%*sconst long __sj_ub_%s = ", 2 * g->indent, "", name);
    iexpr(g, bound);
    sj_buf_puts(b, ";\n");
  }
  if (pointers && bound) {
    isl_val *v = isl_ast_expr_get_val(inc);
    pointer_loop *pl = &g->ptr;
    pl->step = isl_val_get_num_si(v);
    isl_val_free(v);
    pl->op = op;
    snprintf(pl->iter, sizeof pl->iter, "%s", name);
    sj_buf_printf(b, "%*slong __sj_%s = ", 2 * g->indent, "", name);
    iexpr(g, init);
    sj_buf_puts(b, ";\n");
    for (int i = pl->first; i < pl->first + pl->count; i++) {
      const hoisted *h = &g->hoist[i];
      if (!h->stride || h->owner != h->var) continue;
      const sj_sym *a = h->ref->sym;
      line(g, "%s%s *__sj_p%d = __sj_a%d + __sj_o%d + %ldL * __sj_%s;", a->is_const ? "const " : "",
           sj_type_name(a->type), h->var, a->id, h->var, h->stride, name);
    }
    line(g, "for (; __sj_%s + %ldL %s __sj_ub_%s; __sj_%s += %ldL) {", name,
         (UNROLL - 1) * pl->step, op, name, name, UNROLL * pl->step);
    pl->active = 1;
    pl->copy = 0;
  } else {
    sj_buf_printf(b, "%*sfor (long ", 2 * g->indent, "");
    iexpr(g, it);
    sj_buf_puts(b, " = ");
    iexpr(g, init);
    if (distributed) {
      sj_buf_puts(b, " + __sj_tid * ");
      iexpr(g, inc);
    }
    sj_buf_puts(b, "; ");
    if (bound) {
      iexpr(g, it);
      sj_buf_printf(b, " %s __sj_ub_%s", op, name);
    } else {
      iexpr(g, cond);
    }
    sj_buf_puts(b, "; ");
    iexpr(g, it);
    sj_buf_puts(b, " += ");
    if (distributed) sj_buf_puts(b, "__sj_nth * ");
    iexpr(g, inc);
    sj_buf_puts(b, ") {\n");
  }
  g->indent++;
  int copies = g->ptr.active ? UNROLL + 1 : 1;
  isl_ast_expr_free(it);
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  isl_ast_expr_free(inc);
  isl_ast_expr_free(bound);
  isl_id_free(iter);
  return copies;
}

/* The pointers of a pointer loop move on by copies iterations. */
static void advance_pointers(cgen *g, int copies) {
  const pointer_loop *pl = &g->ptr;
  for (int i = pl->first; i < pl->first + pl->count; i++)
    if (g->hoist[i].stride && g->hoist[i].owner == g->hoist[i].var)
      line(g, "__sj_p%d += %ldL;", g->hoist[i].var, copies * g->hoist[i].stride * pl->step);
}

/* Copies 1 .. UNROLL-1 continue the unrolled body; copy UNROLL is the remainder loop. */
static void for_copy(void *t, __isl_keep isl_ast_node *loop, int copy) {
  cgen *g = t;
  pointer_loop *pl = &g->ptr;
  (void)loop;
  pl->copy = copy;
  if (copy < UNROLL) return;
  advance_pointers(g, UNROLL);
  g->indent--;
  line(g, "}");
  line(g, "for (; __sj_%s %s __sj_ub_%s; __sj_%s += %ldL) {", pl->iter, pl->op, pl->iter, pl->iter,
       pl->step);
  g->indent++;
}

static void close_brace(void *t) {
  cgen *g = t;
  g->indent--;
  line(g, "}");
}

static void for_end(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind) {
  cgen *g = t;
  (void)loop, (void)kind;
  if (g->ptr.active) {
    advance_pointers(g, 1);
    g->ptr.active = 0;
  }
  close_brace(t);
  close_brace(t);
}

static void if_begin(void *t, __isl_keep isl_ast_expr *cond) {
  cgen *g = t;
  sj_buf_printf(&g->out, "%*sif (", 2 * g->indent, "");
  iexpr(g, cond);
  sj_buf_puts(&g->out, ") {\n");
  g->indent++;
}

static void if_else(void *t) {
  cgen *g = t;
  g->indent--;
  line(g, "} else {");
  g->indent++;
}

static void stmt(void *t, __isl_keep isl_ast_expr *call) {
  cgen *g = t;
  g->call = call;
  g->stmt = g->m->stmts[sj_ast_call_stmt(call)];
  line(g, "{ /* %s */", g->stmt->name);
  g->indent++;
  for (int k = 0; k < g->stmt->nbody; k++) body_stmt(g, g->stmt->body[k]);
  close_brace(t);
  g->call = NULL;
}

static void single_begin(void *t) {
  cgen *g = t;
  line(g, "if (__sj_tid == 0) {");
  g->indent++;
}

static void barrier(void *t) {
  line(t, "if (__sj_nth > 1) __sj_barrier(__sj_bar);");
}

/* GPU host: a kernel is a launch with the host iterators its code uses. */
static void launch(void *t, __isl_keep isl_ast_node *mark, const sj_kernel_map *k) {
  cgen *g = t;
  int host[64], n = sj_ast_kernel_host_iters(mark, host, 64);
  sj_buf_printf(&g->out, "%*s{ const long __sj_h[] = {0", 2 * g->indent, "");
  for (int i = 0; i < n; i++) sj_buf_printf(&g->out, ", __sj_c%d", host[i]);
  sj_buf_printf(&g->out, "}; if (__sj_launch(__sj_rt, %d, __sj_h + 1)) return 1; }\n", k->id);
}

static const sj_walk_ops host_ops = {for_begin,   for_copy,    for_end, if_begin,
                                     if_else,     close_brace, stmt,    single_begin,
                                     close_brace, barrier,     launch};

char *sj_print_host_c(const sj_model *m, __isl_keep isl_ast_node *ast) {
  cgen g = {m, {0}, 0, NULL, NULL, NULL, 0, 0, 1, {0}};
  line(&g, "/* generated by stenciljit: the host loop of '%s' */", m->fn->name);
  line(&g, "int __sj_launch(void *, int, const long *);");
  line(&g, "int __sj_host(void *__sj_rt) {");
  g.indent++;
  sj_ast_walk_host(ast, &host_ops, &g);
  line(&g, "return 0;");
  g.indent--;
  line(&g, "}");
  return sj_buf_take(&g.out);
}

static const sj_walk_ops c_ops = {for_begin,   for_copy,    for_end, if_begin,
                                  if_else,     close_brace, stmt,    single_begin,
                                  close_brace, barrier,     NULL};

/* --- the function --- */

static void declare_params(cgen *g) {
  const sj_func *fn = g->m->fn;
  int scalar = 0;
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind == SJ_SYM_SCALAR) {
      line(g, "const %s %s = (%s)__sj_scalars[%d];", sj_type_name(s->type), s->name,
           sj_type_name(s->type), scalar++);
    } else if (s->kind == SJ_SYM_ARRAY) {
      line(g, "%s%s *restrict __sj_a%d = __sj_arrays[%d]; /* %s */", s->is_const ? "const " : "",
           sj_type_name(s->type), s->id, s->id, s->name);
    }
  }
}

char *sj_print_c(const sj_model *m, __isl_keep isl_ast_node *ast) {
  cgen g = {m, {0}, 0, NULL, NULL, NULL, 0, 0, 0, {0}};
  line(&g, "/* generated by stenciljit from '%s' */", m->fn->name);
  line(&g, "double sqrt(double); float sqrtf(float); double fabs(double); float fabsf(float);");
  line(&g, "double fmin(double, double); float fminf(float, float);");
  line(&g, "double fmax(double, double); float fmaxf(float, float);");
  line(&g, "void __sj_barrier(void *);");
  line(&g, "static long __sj_min(long a, long b) { return a < b ? a : b; }");
  line(&g, "static long __sj_max(long a, long b) { return a > b ? a : b; }");
  line(&g,
       "static long __sj_floord(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }");
  line(&g, "void __sj_kernel(void **__sj_arrays, const double *__sj_scalars, int __sj_tid, "
           "int __sj_nth, void *__sj_bar) {");
  g.indent++;
  declare_params(&g);
  line(&g, "(void)__sj_arrays; (void)__sj_scalars; (void)__sj_bar;");
  sj_ast_walk(ast, &c_ops, &g);
  g.indent--;
  line(&g, "}");
  for (int i = 0; i < g.nhoist; i++) free(g.hoist[i].rest);
  free(g.hoist);
  return sj_buf_take(&g.out);
}
