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
} hoisted;

typedef struct cgen {
  const sj_model *m;
  sj_buf out;
  int indent;
  const sj_pstmt *stmt; /* the statement instance being printed */
  isl_ast_expr *call;   /* its call: iterator values */
  hoisted *hoist;
  int nhoist, nvars;
  int host; /* GPU host code: statements live in kernels, nothing to hoist */
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
    sj_buf_printf(b, "__sj_%s", isl_id_get_name(id));
    isl_id_free(id);
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
static int inner_plus_constant(cgen *g, const sj_expr *atom, isl_id *inner, long *k) {
  if (atom->kind != SJ_E_VAR || atom->sym->kind != SJ_SYM_ITER) return 0;
  isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, iter_arg(g->stmt, atom->sym));
  isl_ast_expr *x = NULL, *c = NULL;
  int ok = 0;
  *k = 0;
  if (isl_ast_expr_get_type(arg) == isl_ast_expr_id) {
    x = isl_ast_expr_copy(arg);
  } else if (isl_ast_expr_get_type(arg) == isl_ast_expr_op &&
             isl_ast_expr_op_get_type(arg) == isl_ast_expr_op_add) {
    x = isl_ast_expr_op_get_arg(arg, 0);
    c = isl_ast_expr_op_get_arg(arg, 1);
  }
  if (x && isl_ast_expr_get_type(x) == isl_ast_expr_id &&
      (!c || isl_ast_expr_get_type(c) == isl_ast_expr_int)) {
    isl_id *id = isl_ast_expr_get_id(x);
    ok = id == inner;
    isl_id_free(id);
    if (ok && c) {
      isl_val *v = isl_ast_expr_get_val(c);
      *k = isl_val_get_num_si(v);
      isl_val_free(v);
    }
  }
  isl_ast_expr_free(x);
  isl_ast_expr_free(c);
  isl_ast_expr_free(arg);
  return ok;
}

/* The terms of ref's offset that vary with inner (part = 1) or not (part = 0); inner NULL
 * prints them all. A term coef * (inner + k) contributes coef * inner to the varying part
 * and coef * k to the invariant one, so the subscript in the loop is just a sum. */
static void offset_terms(cgen *g, const sj_expr *ref, isl_id *inner, int part) {
  sj_linear lin;
  sj_linearize(ref, g->m->extents[ref->sym->id], g->m->shape, &lin);
  dep_query q = {g, inner};
  long constant = lin.constant, k;
  for (int i = 0; inner && i < lin.n; i++)
    if (inner_plus_constant(g, lin.terms[i].atom, inner, &k)) constant += lin.terms[i].coef * k;
  if (part == 0 || !inner) sj_buf_printf(&g->out, "%ldL", inner ? constant : lin.constant);
  for (int i = 0; i < lin.n; i++) {
    const sj_term *t = &lin.terms[i];
    if (inner && inner_plus_constant(g, t->atom, inner, &k)) {
      if (part == 1) {
        sj_buf_puts(&g->out, " + ");
        if (t->coef != 1) sj_buf_printf(&g->out, "%ldL * ", t->coef);
        sj_buf_printf(&g->out, "__sj_%s", isl_id_get_name(inner));
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

static void hoist_refs(cgen *g, const sj_expr *e, isl_id *inner) {
  if (e->kind == SJ_E_INDEX) {
    g->hoist = realloc(g->hoist, (g->nhoist + 1) * sizeof *g->hoist);
    hoisted *h = &g->hoist[g->nhoist++];
    *h = (hoisted){g->call, e, inner, g->nvars++};
    sj_buf_printf(&g->out, "%*sconst long __sj_o%d = ", 2 * g->indent, "", h->var);
    offset_terms(g, e, inner, 0);
    sj_buf_puts(&g->out, ";\n");
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
static void hoist_loop(cgen *g, __isl_keep isl_ast_node *loop, __isl_keep isl_id *iter) {
  isl_ast_node *body = isl_ast_node_for_get_body(loop);
  hoist_scan h = {g, NULL, 0};
  isl_ast_node_foreach_descendant_top_down(body, scan_user, &h);
  if (!h.inner_loop) {
    h.inner = iter;
    isl_ast_node_foreach_descendant_top_down(body, scan_user, &h);
  }
  isl_ast_node_free(body);
}

static void print_offset(cgen *g, const sj_expr *ref) {
  const hoisted *h = find_hoisted(g, ref);
  if (!h) {
    offset_terms(g, ref, NULL, 0);
    return;
  }
  sj_buf_printf(&g->out, "__sj_o%d", h->var);
  offset_terms(g, ref, h->inner, 1);
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
    sj_buf_printf(b, "__sj_a%d[", e->sym->id);
    print_offset(g, e);
    sj_buf_puts(b, "]");
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
  sj_buf *b = &g->out;
  line(g, "{");
  g->indent++;
  if (!g->host) hoist_loop(g, loop, iter);
  const char *op = NULL;
  isl_ast_expr *bound = loop_bound(cond, &op);
  if (bound) {
    sj_buf_printf(b, "%*sconst long __sj_ub_%s = ", 2 * g->indent, "", isl_id_get_name(iter));
    iexpr(g, bound);
    sj_buf_puts(b, ";\n");
  }
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
    sj_buf_printf(b, " %s __sj_ub_%s", op, isl_id_get_name(iter));
  } else {
    iexpr(g, cond);
  }
  sj_buf_puts(b, "; ");
  iexpr(g, it);
  sj_buf_puts(b, " += ");
  if (distributed) sj_buf_puts(b, "__sj_nth * ");
  iexpr(g, inc);
  sj_buf_puts(b, ") {\n");
  g->indent++;
  isl_ast_expr_free(it);
  isl_ast_expr_free(init);
  isl_ast_expr_free(cond);
  isl_ast_expr_free(inc);
  isl_ast_expr_free(bound);
  isl_id_free(iter);
  return 1;
}

static void close_brace(void *t) {
  cgen *g = t;
  g->indent--;
  line(g, "}");
}

static void for_end(void *t, __isl_keep isl_ast_node *loop, sj_loop_kind kind) {
  (void)loop, (void)kind;
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

static const sj_walk_ops host_ops = {for_begin,   NULL,        for_end, if_begin,
                                     if_else,     close_brace, stmt,    single_begin,
                                     close_brace, barrier,     launch};

char *sj_print_host_c(const sj_model *m, __isl_keep isl_ast_node *ast) {
  cgen g = {m, {0}, 0, NULL, NULL, NULL, 0, 0, 1};
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

static const sj_walk_ops c_ops = {for_begin,   NULL,        for_end, if_begin,
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
  cgen g = {m, {0}, 0, NULL, NULL, NULL, 0, 0, 0};
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
  free(g.hoist);
  return sj_buf_take(&g.out);
}
