/* The C target of the AST walk: the CPU kernel as one C function every worker thread runs
 * (SPMD: distributed loops, single-thread regions, barriers), and the GPU host loop that
 * launches the kernels in order. Shape parameters are constants; arrays are flat pointers
 * whose offsets host/coffset.c prints. */
#include "host/host.h"
#include "host/cgen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"
#include "base/buf.h"

void sj_cg_line(cgen *g, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  sj_buf_printf(&g->out, "%*s%s\n", 2 * g->indent, "", tmp);
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
  sj_cg_line(g, "{");
  g->indent++;
  int pointers = !g->host && sj_cg_hoist_loop(g, loop, iter) && kind == SJ_LOOP_SEQUENTIAL &&
                 isl_ast_expr_get_type(inc) == isl_ast_expr_int;
  const char *op = NULL;
  isl_ast_expr *bound = loop_bound(cond, &op);
  if (bound) {
    sj_buf_printf(b, "%*sconst long __sj_ub_%s = ", 2 * g->indent, "", name);
    sj_cg_iexpr(g, bound);
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
    sj_cg_iexpr(g, init);
    sj_buf_puts(b, ";\n");
    for (int i = pl->first; i < pl->first + pl->count; i++) {
      const hoisted *h = &g->hoist[i];
      if (!h->stride || h->owner != h->var) continue;
      const sj_sym *a = h->ref->sym;
      sj_cg_line(g, "%s%s *__sj_p%d = __sj_a%d + __sj_o%d + %ldL * __sj_%s;",
                 a->is_const ? "const " : "", sj_type_name(a->type), h->var, a->id, h->var,
                 h->stride, name);
    }
    sj_cg_line(g, "for (; __sj_%s + %ldL %s __sj_ub_%s; __sj_%s += %ldL) {", name,
               (UNROLL - 1) * pl->step, op, name, name, UNROLL * pl->step);
    pl->active = 1;
    pl->copy = 0;
  } else {
    sj_buf_printf(b, "%*sfor (long ", 2 * g->indent, "");
    sj_cg_iexpr(g, it);
    sj_buf_puts(b, " = ");
    sj_cg_iexpr(g, init);
    if (distributed) {
      sj_buf_puts(b, " + __sj_tid * ");
      sj_cg_iexpr(g, inc);
    }
    sj_buf_puts(b, "; ");
    if (bound) {
      sj_cg_iexpr(g, it);
      sj_buf_printf(b, " %s __sj_ub_%s", op, name);
    } else {
      sj_cg_iexpr(g, cond);
    }
    sj_buf_puts(b, "; ");
    sj_cg_iexpr(g, it);
    sj_buf_puts(b, " += ");
    if (distributed) sj_buf_puts(b, "__sj_nth * ");
    sj_cg_iexpr(g, inc);
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
      sj_cg_line(g, "__sj_p%d += %ldL;", g->hoist[i].var, copies * g->hoist[i].stride * pl->step);
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
  sj_cg_line(g, "}");
  sj_cg_line(g, "for (; __sj_%s %s __sj_ub_%s; __sj_%s += %ldL) {", pl->iter, pl->op, pl->iter,
             pl->iter, pl->step);
  g->indent++;
}

static void close_brace(void *t) {
  cgen *g = t;
  g->indent--;
  sj_cg_line(g, "}");
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
  sj_cg_iexpr(g, cond);
  sj_buf_puts(&g->out, ") {\n");
  g->indent++;
}

static void if_else(void *t) {
  cgen *g = t;
  g->indent--;
  sj_cg_line(g, "} else {");
  g->indent++;
}

static void stmt(void *t, __isl_keep isl_ast_expr *call) {
  cgen *g = t;
  g->call = call;
  g->stmt = g->m->stmts[sj_ast_call_stmt(call)];
  sj_cg_line(g, "{ /* %s */", g->stmt->name);
  g->indent++;
  for (int k = 0; k < g->stmt->nbody; k++) sj_cg_body_stmt(g, g->stmt->body[k]);
  close_brace(t);
  g->call = NULL;
}

static void single_begin(void *t) {
  cgen *g = t;
  sj_cg_line(g, "if (__sj_tid == 0) {");
  g->indent++;
}

static void barrier(void *t) {
  sj_cg_line(t, "if (__sj_nth > 1) __sj_barrier(__sj_bar);");
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
  sj_cg_line(&g, "/* generated by stenciljit: the host loop of '%s' */", m->fn->name);
  sj_cg_line(&g, "int __sj_launch(void *, int, const long *);");
  sj_cg_line(&g, "int __sj_host(void *__sj_rt) {");
  g.indent++;
  sj_ast_walk_host(ast, &host_ops, &g);
  sj_cg_line(&g, "return 0;");
  g.indent--;
  sj_cg_line(&g, "}");
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
      sj_cg_line(g, "const %s %s = (%s)__sj_scalars[%d];", sj_type_name(s->type), s->name,
                 sj_type_name(s->type), scalar++);
    } else if (s->kind == SJ_SYM_ARRAY) {
      sj_cg_line(g, "%s%s *restrict __sj_a%d = __sj_arrays[%d]; /* %s */",
                 s->is_const ? "const " : "", sj_type_name(s->type), s->id, s->id, s->name);
    }
  }
}

char *sj_print_c(const sj_model *m, __isl_keep isl_ast_node *ast) {
  cgen g = {m, {0}, 0, NULL, NULL, NULL, 0, 0, 0, {0}};
  sj_cg_line(&g, "/* generated by stenciljit from '%s' */", m->fn->name);
  sj_cg_line(&g,
             "double sqrt(double); float sqrtf(float); double fabs(double); float fabsf(float);");
  sj_cg_line(&g, "double fmin(double, double); float fminf(float, float);");
  sj_cg_line(&g, "double fmax(double, double); float fmaxf(float, float);");
  sj_cg_line(&g, "void __sj_barrier(void *);");
  sj_cg_line(&g, "static long __sj_min(long a, long b) { return a < b ? a : b; }");
  sj_cg_line(&g, "static long __sj_max(long a, long b) { return a > b ? a : b; }");
  sj_cg_line(
      &g,
      "static long __sj_floord(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }");
  sj_cg_line(&g, "void __sj_kernel(void **__sj_arrays, const double *__sj_scalars, int __sj_tid, "
                 "int __sj_nth, void *__sj_bar) {");
  g.indent++;
  declare_params(&g);
  sj_cg_line(&g, "(void)__sj_arrays; (void)__sj_scalars; (void)__sj_bar;");
  sj_ast_walk(ast, &c_ops, &g);
  g.indent--;
  sj_cg_line(&g, "}");
  for (int i = 0; i < g.nhoist; i++) free(g.hoist[i].rest);
  free(g.hoist);
  return sj_buf_take(&g.out);
}
