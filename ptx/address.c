/* Addresses: the array base plus the variable part of an access's linear offset, shared
 * by the accesses with the same variable part, the constant part folded into [reg+imm];
 * hoisted above guarded copies and strength-reduced in innermost sequential loops. */
#include "ptx/print.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/id.h>
#include <isl/val.h>

#include "astgen/astgen.h"
#include "astgen/linear.h"
#include "base/buf.h"

/* The value of the instance's k-th iterator, computed when first needed. */
static opnd iter_value(ptx *x, int k) {
  if (!x->call_iter[k]) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(x->call, k + 1);
    x->call_iter[k] = atoi(sj_px_in_reg64(x, sj_px_iexpr(x, a)).s + 3);
    isl_ast_expr_free(a);
  }
  return sj_px_reg_opnd(B64, x->call_iter[k]);
}

/* An integer atom of an offset as a 64-bit value. */
opnd sj_px_atom64(ptx *x, const sj_expr *a) {
  for (int k = 0; a->kind == SJ_E_VAR && k < x->stmt->depth; k++)
    if (x->stmt->iters[k] == a->sym) return iter_value(x, k);
  char key[96];
  int keyed = sj_expr_key(a, key, sizeof key) > 0;
  if (keyed) {
    opnd *v = sj_px_find_memo(x, key);
    if (v) return *v;
  }
  opnd v = sj_px_uval(x, a);
  if (a->type == SJ_TY_INT) {
    opnd w = sj_px_fresh(x, B64);
    sj_px_emit(x, "cvt.s64.s32 %s, %s", w.s, v.s);
    v = w;
  }
  if (keyed) sj_px_add_memo(x, key, v);
  return v;
}

typedef struct term {
  long coef;
  opnd reg;
} term;

static void add_term(term *t, int *n, long coef, opnd reg) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(t[i].reg.s, reg.s)) {
      t[i].coef += coef;
      return;
    }
  if (*n < 32) t[(*n)++] = (term){coef, reg};
}

/* coef * e as terms over registers plus a constant: loop iterators stay separate, so the
 * unrolled copies of an instance share their terms and differ only in the constant. */
static void expand(ptx *x, __isl_keep isl_ast_expr *e, long coef, term *t, int *n, long *c) {
  enum isl_ast_expr_type type = isl_ast_expr_get_type(e);
  if (type == isl_ast_expr_int) {
    isl_val *v = isl_ast_expr_get_val(e);
    *c += coef * isl_val_get_num_si(v);
    isl_val_free(v);
    return;
  }
  if (type == isl_ast_expr_id) { /* register + constant: copies share the register */
    int d = sj_ast_id_depth(e);
    *c += coef * x->iter_off[d];
    add_term(t, n, coef, sj_px_reg_opnd(B64, x->iter[d]));
    return;
  }
  if (type == isl_ast_expr_op) {
    enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(e);
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0);
    isl_ast_expr *b = isl_ast_expr_op_get_n_arg(e) > 1 ? isl_ast_expr_op_get_arg(e, 1) : NULL;
    int done = 1;
    if (op == isl_ast_expr_op_add || op == isl_ast_expr_op_sub) {
      expand(x, a, coef, t, n, c);
      expand(x, b, op == isl_ast_expr_op_add ? coef : -coef, t, n, c);
    } else if (op == isl_ast_expr_op_minus) {
      expand(x, a, -coef, t, n, c);
    } else if (op == isl_ast_expr_op_mul && isl_ast_expr_get_type(a) == isl_ast_expr_int) {
      isl_val *v = isl_ast_expr_get_val(a);
      expand(x, b, coef * isl_val_get_num_si(v), t, n, c);
      isl_val_free(v);
    } else {
      done = 0;
    }
    isl_ast_expr_free(a);
    isl_ast_expr_free(b);
    if (done) return;
  }
  add_term(t, n, coef, sj_px_iexpr(x, e));
}

static int by_register(const void *a, const void *b) {
  return strcmp(((const term *)a)->reg.s, ((const term *)b)->reg.s);
}

/* The offset of ref in elements as terms over registers (sorted) plus a constant. */
static int offset_terms(ptx *x, const sj_expr *ref, term *terms, long *constant) {
  sj_linear lin;
  sj_linearize(ref, x->m->extents[ref->sym->id], x->m->shape, &lin);
  int n = 0;
  *constant = lin.constant;
  for (int i = 0; i < lin.n; i++) {
    const sj_expr *a = lin.terms[i].atom;
    int k = 0;
    while (a->kind == SJ_E_VAR && k < x->stmt->depth && x->stmt->iters[k] != a->sym) k++;
    if (a->kind == SJ_E_VAR && k < x->stmt->depth) {
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(x->call, k + 1);
      expand(x, arg, lin.terms[i].coef, terms, &n, constant);
      isl_ast_expr_free(arg);
    } else {
      add_term(terms, &n, lin.terms[i].coef, sj_px_atom64(x, a));
    }
  }
  sj_linear_free(&lin);
  qsort(terms, (size_t)n, sizeof *terms, by_register);
  return n;
}

/* [address] of an access: base + size * variable part; the constant part is the immediate.
 * Accesses with the same variable part share one address register while it is valid.
 * Returns the register. */
opnd sj_px_address(ptx *x, const sj_expr *ref, char *out, size_t size) {
  int bytes = sj_px_size_of(ref->sym->type);
  term terms[32];
  long constant;
  int n = offset_terms(x, ref, terms, &constant);
  char key[96];
  int len = snprintf(key, sizeof key, "@%d", ref->sym->id);
  for (int i = 0; i < n && len < (int)sizeof key; i++)
    len += snprintf(key + len, sizeof key - (size_t)len, "+%ld*%s", terms[i].coef, terms[i].reg.s);
  int keyed = len < (int)sizeof key - 1 && n < 32;
  opnd *known = keyed ? sj_px_find_memo(x, key) : NULL;
  opnd addr;
  if (known) {
    addr = *known;
  } else {
    opnd sum = sj_px_imm(0);
    for (int i = 0; i < n; i++) {
      if (!terms[i].coef) continue;
      opnd t = terms[i].reg;
      if (terms[i].coef != 1) t = sj_px_binop64(x, "mul.lo", t, sj_px_imm(terms[i].coef));
      sum = sj_px_is_imm(sum) ? t : sj_px_binop64(x, "add", sum, t);
    }
    opnd base = sj_px_reg_opnd(B64, x->array_base[ref->sym->id]);
    if (sj_px_is_imm(sum)) {
      addr = base;
    } else {
      opnd scaled = sj_px_fresh(x, B64);
      sj_px_emit(x, "shl.b64 %s, %s, %d", scaled.s, sum.s, bytes == 4 ? 2 : 3);
      addr = sj_px_binop64(x, "add", base, scaled);
    }
    if (keyed) sj_px_add_memo(x, key, addr);
  }
  opnd reg = addr;
  long offset = constant * bytes;
  if (offset > 0x7fffffffL || offset < -0x7fffffffL) {
    addr = sj_px_binop64(x, "add", addr, sj_px_imm(offset));
    offset = 0;
  }
  if (offset)
    snprintf(out, size, "[%s+%ld]", addr.s, offset);
  else
    snprintf(out, size, "[%s]", addr.s);
  return reg;
}

/* --- strength reduction of addresses in innermost sequential loops --- */

static isl_bool find_inner_loop(__isl_keep isl_ast_node *node, void *found) {
  if (isl_ast_node_get_type(node) == isl_ast_node_for) *(int *)found = 1;
  return *(int *)found ? isl_bool_false : isl_bool_true;
}

typedef struct reduce_scan {
  ptx *x;
  int depth, level; /* level < 0: hoist the addresses only, the loop is unrolled */
  long step;        /* the loop's increment */
  int inner_loop;
} reduce_scan;

static int varies_in_loop(const sj_sym *iter, void *user) {
  reduce_scan *r = user;
  const sj_pstmt *s = r->x->stmt;
  for (int k = 0; k < s->depth; k++)
    if (s->iters[k] == iter) {
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(r->x->call, k + 1);
      int yes = sj_ast_mentions(arg, r->depth);
      isl_ast_expr_free(arg);
      return yes;
    }
  return 0;
}

/* An access whose offset is affine in the loop's iterator: its address is computed before
 * the loop and advanced by a constant each iteration. Others are left to the body. */
static void reduce_access(reduce_scan *r, const sj_expr *ref) {
  ptx *x = r->x;
  sj_linear lin;
  sj_linearize(ref, x->m->extents[ref->sym->id], x->m->shape, &lin);
  int opaque = 0;
  for (int i = 0; i < lin.n; i++)
    if (lin.terms[i].atom->kind != SJ_E_VAR || lin.terms[i].atom->sym->kind != SJ_SYM_ITER)
      opaque |= sj_expr_depends(lin.terms[i].atom, varies_in_loop, r);
  sj_linear_free(&lin);
  if (opaque) return;
  term terms[32];
  long constant;
  int n = offset_terms(x, ref, terms, &constant);
  long coef = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(terms[i].reg.s, sj_px_reg_opnd(B64, x->iter[r->depth]).s)) coef = terms[i].coef;
  char where[96];
  opnd p = sj_px_address(x, ref, where, sizeof where); /* now in the preheader, memoized */
  if (r->level < 0 || !coef || p.s[1] != 'r' || p.s[2] != 'd') return;
  int reg = atoi(p.s + 3), *count = &x->nreduced[r->level];
  for (int i = 0; i < *count; i++)
    if (x->reduced_reg[r->level][i] == reg) return;
  if (*count == 16 || reg == x->array_base[ref->sym->id]) return;
  x->reduced_reg[r->level][*count] = reg;
  x->reduced_step[r->level][(*count)++] = coef * r->step * sj_px_size_of(ref->sym->type);
}

static void reduce_refs(reduce_scan *r, const sj_expr *e) {
  if (e->kind == SJ_E_INDEX) reduce_access(r, e);
  /* only what every iteration evaluates: not the lazy sides of ?:, && and || */
  int lazy =
      e->kind == SJ_E_COND || (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR));
  for (int i = 0; i < (lazy ? 1 : e->nargs); i++) reduce_refs(r, e->args[i]);
}

static isl_bool scan_loop(__isl_keep isl_ast_node *node, void *user) {
  reduce_scan *r = user;
  enum isl_ast_node_type type = isl_ast_node_get_type(node);
  if (type == isl_ast_node_for) r->inner_loop = 1;
  if (type != isl_ast_node_user || r->inner_loop) return isl_bool_true;
  ptx *x = r->x;
  x->call = isl_ast_node_user_get_expr(node);
  x->stmt = x->m->stmts[sj_ast_call_stmt(x->call)];
  memset(x->call_iter, 0, sizeof x->call_iter);
  for (int k = 0; k < x->stmt->nbody; k++) {
    const sj_stmt *st = x->stmt->body[k];
    if (st->lhs && st->lhs->kind == SJ_E_INDEX) reduce_access(r, st->lhs);
    if (st->lhs) /* subscripts of the left side */
      for (int i = 0; i < st->lhs->nargs; i++) reduce_refs(r, st->lhs->args[i]);
    if (st->rhs) reduce_refs(r, st->rhs);
  }
  isl_ast_expr_free(x->call); /* the node keeps it alive */
  x->call = NULL;
  return isl_bool_true;
}

/* Before an innermost loop with a constant step: pointers for the accesses inside. */
void sj_px_reduce_loop(ptx *x, __isl_keep isl_ast_node *loop, int depth, int level) {
  x->nreduced[level] = 0;
  isl_ast_expr *inc = isl_ast_node_for_get_inc(loop);
  int constant_step = isl_ast_expr_get_type(inc) == isl_ast_expr_int;
  isl_val *v = constant_step ? isl_ast_expr_get_val(inc) : NULL;
  reduce_scan r = {x, depth, level, v ? isl_val_get_num_si(v) : 0, 0};
  isl_val_free(v);
  isl_ast_expr_free(inc);
  if (!constant_step) return;
  isl_ast_node *body = isl_ast_node_for_get_body(loop);
  isl_ast_node_foreach_descendant_top_down(body, find_inner_loop, &r.inner_loop);
  if (!r.inner_loop) isl_ast_node_foreach_descendant_top_down(body, scan_loop, &r);
  isl_ast_node_free(body);
}

/* Before the guarded copies of an unrolled loop: their addresses, computed once and shared
 * (they differ only in the immediate), so each guard covers little more than loads and
 * stores. */
void sj_px_hoist_addresses(ptx *x, __isl_keep isl_ast_node *loop) {
  reduce_scan r = {x, sj_ast_loop_depth(loop), -1, 0, 0};
  long off = x->iter_off[r.depth];
  x->iter_off[r.depth] = 0;
  isl_ast_node *body = isl_ast_node_for_get_body(loop);
  isl_ast_node_foreach_descendant_top_down(body, find_inner_loop, &r.inner_loop);
  if (!r.inner_loop) isl_ast_node_foreach_descendant_top_down(body, scan_loop, &r);
  isl_ast_node_free(body);
  x->iter_off[r.depth] = off;
  x->unroll_memos = x->nmemos;
}
