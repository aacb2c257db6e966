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
#include "jit/buf.h"

typedef struct cgen {
  const sj_model *m;
  sj_buf out;
  int indent;
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

static const char *ctype(sj_type t) {
  switch (t) {
  case SJ_TY_INT: return "int";
  case SJ_TY_LONG: return "long";
  case SJ_TY_FLOAT: return "float";
  case SJ_TY_DOUBLE: return "double";
  default: return "void";
  }
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
  default: break;
  }
  const char *infix = NULL, *fn = NULL;
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and: case isl_ast_expr_op_and_then: infix = " && "; break;
  case isl_ast_expr_op_or: case isl_ast_expr_op_or_else: infix = " || "; break;
  case isl_ast_expr_op_add: infix = " + "; break;
  case isl_ast_expr_op_sub: infix = " - "; break;
  case isl_ast_expr_op_mul: infix = " * "; break;
  case isl_ast_expr_op_div: case isl_ast_expr_op_pdiv_q: infix = " / "; break;
  case isl_ast_expr_op_pdiv_r: case isl_ast_expr_op_zdiv_r: infix = " % "; break;
  case isl_ast_expr_op_eq: infix = " == "; break;
  case isl_ast_expr_op_le: infix = " <= "; break;
  case isl_ast_expr_op_lt: infix = " < "; break;
  case isl_ast_expr_op_ge: infix = " >= "; break;
  case isl_ast_expr_op_gt: infix = " > "; break;
  case isl_ast_expr_op_max: fn = "__sj_max"; break;
  case isl_ast_expr_op_min: fn = "__sj_min"; break;
  case isl_ast_expr_op_fdiv_q: fn = "__sj_floord"; break;
  case isl_ast_expr_op_minus: sj_buf_puts(b, "(-"); iargs(g, e, "", 0); sj_buf_puts(b, ")"); return;
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select: iargs(g, e, "", 0); /* not produced without options */
    return;
  default: sj_buf_puts(b, "/* unsupported isl expression */0"); return;
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
  case SJ_E_FLOAT: literal(b, e); return;
  case SJ_E_VAR:
    if (e->sym->kind == SJ_SYM_SHAPE) {
      long v = g->m->shape[e->sym->param];
      sj_buf_printf(b, v < 0 ? "(%ld%s)" : "%ld%s", v, e->type == SJ_TY_LONG ? "L" : "");
    } else {
      sj_buf_puts(b, e->sym->name);
    }
    return;
  case SJ_E_INDEX:
    sj_buf_puts(b, e->sym->name);
    for (int k = 0; k < e->nargs; k++) {
      sj_buf_puts(b, "[");
      uexpr(g, e->args[k]);
      sj_buf_puts(b, "]");
    }
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
    sj_buf_printf(b, "((%s)", ctype(e->type));
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
    sj_buf_printf(b, "%s %s", ctype(st->sym->type), st->sym->name);
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

static void for_begin(void *t, __isl_keep isl_ast_node *loop, int distributed) {
  cgen *g = t;
  isl_ast_expr *it = isl_ast_node_for_get_iterator(loop);
  isl_ast_expr *init = isl_ast_node_for_get_init(loop);
  isl_ast_expr *cond = isl_ast_node_for_get_cond(loop);
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  sj_buf *b = &g->out;
  sj_buf_printf(b, "%*sfor (long ", 2 * g->indent, "");
  iexpr(g, it);
  sj_buf_puts(b, " = ");
  iexpr(g, init);
  if (distributed) {
    sj_buf_puts(b, " + __sj_tid * ");
    iexpr(g, inc);
  }
  sj_buf_puts(b, "; ");
  iexpr(g, cond);
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
}

static void close_brace(void *t) {
  cgen *g = t;
  g->indent--;
  line(g, "}");
}

static void for_end(void *t, __isl_keep isl_ast_node *loop, int distributed) {
  (void)loop, (void)distributed;
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
  const sj_pstmt *s = g->m->stmts[sj_ast_call_stmt(call)];
  line(g, "{ /* %s */", s->name);
  g->indent++;
  for (int k = 0; k < s->depth; k++) {
    isl_ast_expr *v = isl_ast_expr_op_get_arg(call, k + 1);
    sj_buf_printf(&g->out, "%*sconst int %s = (int)", 2 * g->indent, "", s->iters[k]->name);
    iexpr(g, v);
    sj_buf_puts(&g->out, ";\n");
    isl_ast_expr_free(v);
  }
  /* a nested block: the body's locals may shadow the iterators, as in C */
  line(g, "{");
  g->indent++;
  for (int k = 0; k < s->nbody; k++) body_stmt(g, s->body[k]);
  close_brace(t);
  close_brace(t);
}

static void single_begin(void *t) {
  cgen *g = t;
  line(g, "if (__sj_tid == 0) {");
  g->indent++;
}

static void barrier(void *t) { line(t, "if (__sj_nth > 1) __sj_barrier(__sj_bar);"); }

static const sj_walk_ops c_ops = {for_begin, for_end, if_begin, if_else, close_brace,
                                  stmt,      single_begin, close_brace, barrier};

/* --- the function --- */

static void declare_params(cgen *g) {
  const sj_func *fn = g->m->fn;
  int scalar = 0;
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *s = fn->params[p];
    if (s->kind == SJ_SYM_SCALAR) {
      line(g, "const %s %s = (%s)__sj_scalars[%d];", ctype(s->type), s->name, ctype(s->type),
           scalar++);
    } else if (s->kind == SJ_SYM_ARRAY) {
      char dims[256] = "";
      size_t len = 0;
      for (int k = 1; k < s->rank && len < sizeof dims; k++) {
        long e = g->m->extents[s->id][k];
        len += snprintf(dims + len, sizeof dims - len, "[%ld]", e > 0 ? e : 1);
      }
      const char *q = s->is_const ? "const " : "";
      if (s->rank == 1)
        line(g, "%s%s *restrict %s = __sj_arrays[%d];", q, ctype(s->type), s->name, s->id);
      else
        line(g, "%s%s (*restrict %s)%s = __sj_arrays[%d];", q, ctype(s->type), s->name, dims,
             s->id);
    }
  }
}

char *sj_print_c(const sj_model *m, __isl_keep isl_ast_node *ast) {
  cgen g = {m, {0}, 0};
  line(&g, "/* generated by stenciljit from '%s' */", m->fn->name);
  line(&g, "double sqrt(double); float sqrtf(float); double fabs(double); float fabsf(float);");
  line(&g, "double fmin(double, double); float fminf(float, float);");
  line(&g, "double fmax(double, double); float fmaxf(float, float);");
  line(&g, "void __sj_barrier(void *);");
  line(&g, "static long __sj_min(long a, long b) { return a < b ? a : b; }");
  line(&g, "static long __sj_max(long a, long b) { return a > b ? a : b; }");
  line(&g, "static long __sj_floord(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }");
  line(&g, "void __sj_kernel(void **__sj_arrays, const double *__sj_scalars, int __sj_tid, "
           "int __sj_nth, void *__sj_bar) {");
  g.indent++;
  declare_params(&g);
  line(&g, "(void)__sj_arrays; (void)__sj_scalars; (void)__sj_bar;");
  sj_ast_walk(ast, &c_ops, &g);
  g.indent--;
  line(&g, "}");
  return sj_buf_take(&g.out);
}
