/* The C printer's expressions: the isl AST's integers as long, and the user's with every
 * conversion explicit and every operation parenthesized, so TinyCC evaluates exactly what
 * the C function evaluates. */
#include "host/cgen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"

static void iargs(cgen *g, __isl_keep isl_ast_expr *e, const char *sep, int from) {
  int n = isl_ast_expr_op_get_n_arg(e);
  for (int i = from; i < n; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    if (i > from) sj_buf_puts(&g->out, sep);
    sj_cg_iexpr(g, a);
    isl_ast_expr_free(a);
  }
}

void sj_cg_iexpr(cgen *g, __isl_keep isl_ast_expr *e) {
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
    sj_cg_iexpr(g, a);
    isl_ast_expr_free(a);
    sj_buf_puts(b, i == 0 ? (n > 1 ? ", " : "") : (i < n - 1 ? "), " : ")"));
  }
}

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

void sj_cg_uexpr(cgen *g, const sj_expr *e) {
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
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(g->call, sj_cg_iter_arg(g->stmt, e->sym));
      sj_buf_puts(b, "((int)");
      sj_cg_iexpr(g, arg);
      sj_buf_puts(b, ")");
      isl_ast_expr_free(arg);
    } else {
      sj_buf_puts(b, e->sym->name);
    }
    return;
  case SJ_E_INDEX:
    sj_cg_print_element(g, e);
    return;
  case SJ_E_UNARY:
    sj_buf_printf(b, "(%c", e->op);
    sj_cg_uexpr(g, e->args[0]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_BINARY:
    sj_buf_puts(b, "(");
    sj_cg_uexpr(g, e->args[0]);
    sj_buf_printf(b, " %s ", sj_binop_text(e->op));
    sj_cg_uexpr(g, e->args[1]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_COND:
    sj_buf_puts(b, "(");
    sj_cg_uexpr(g, e->args[0]);
    sj_buf_puts(b, " ? ");
    sj_cg_uexpr(g, e->args[1]);
    sj_buf_puts(b, " : ");
    sj_cg_uexpr(g, e->args[2]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_CAST:
    sj_buf_printf(b, "((%s)", sj_type_name(e->type));
    sj_cg_uexpr(g, e->args[0]);
    sj_buf_puts(b, ")");
    return;
  case SJ_E_CALL:
    sj_buf_printf(b, "%s(", sj_func_name(e->op));
    for (int k = 0; k < e->nargs; k++) {
      if (k) sj_buf_puts(b, ", ");
      sj_cg_uexpr(g, e->args[k]);
    }
    sj_buf_puts(b, ")");
    return;
  }
}

void sj_cg_body_stmt(cgen *g, const sj_stmt *st) {
  sj_buf *b = &g->out;
  sj_buf_printf(b, "%*s", 2 * g->indent, "");
  if (st->kind == SJ_S_DECL) {
    sj_buf_printf(b, "%s %s", sj_type_name(st->sym->type), st->sym->name);
    if (st->rhs) {
      sj_buf_puts(b, " = ");
      sj_cg_uexpr(g, st->rhs);
    }
  } else {
    sj_cg_uexpr(g, st->lhs);
    sj_buf_puts(b, " = ");
    sj_cg_uexpr(g, st->rhs);
  }
  sj_buf_puts(b, ";\n");
}
