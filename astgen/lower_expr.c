/* Expressions in the IR: the isl AST's integers (64-bit), the user's expressions with C's
 * types, and array addresses as linear forms whose terms are grouped by the loop depth
 * where they change, so that each group's pointer is computed outside the loops it does
 * not depend on and unrolled copies share one pointer with constant offsets. */
#include "astgen/astgen.h"
#include "astgen/live_ast.h"
#include "astgen/lower.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <isl/val.h>

#include "sched/linear.h"
#include "base/arith.h"
#include "stenciljit.h"

void sj_lw_fail(sj_lower *l, const char *what) {
  if (!l->failed) sj_error_set(l->err, JIT_ERR_INTERNAL, "lowering to the kernel IR: %s", what);
  l->failed = 1;
}

static void out_of_memory(sj_lower *l) {
  if (!l->failed) sj_error_set(l->err, JIT_ERR_NOMEM, "out of memory");
  l->failed = 1;
}

void sj_lw_bind(sj_lower *l, __isl_keep isl_id *id, sj_ir_val val, long offset) {
  if (l->nbinds == l->capbinds) {
    l->capbinds = l->capbinds ? 2 * l->capbinds : 16;
    l->binds = realloc(l->binds, (size_t)l->capbinds * sizeof *l->binds);
    if (!l->binds) abort();
  }
  l->binds[l->nbinds++] = (sj_binding){id, val, offset, NULL, 0, 0, {0}, 0};
}

void sj_lw_bind_range(sj_lower *l, __isl_keep isl_ast_expr *base, long base_const, sj_ir_val r,
                      long span) {
  sj_binding *last = &l->binds[l->nbinds - 1];
  last->base = base;
  last->base_const = base_const;
  last->r = r;
  last->span = span;
}

void sj_lw_unbind(sj_lower *l) {
  l->nbinds--;
}

static const sj_ir_special block_special[3] = {SJ_SPECIAL_CTAID_X, SJ_SPECIAL_CTAID_Y,
                                               SJ_SPECIAL_CTAID_Z};
static const sj_ir_special thread_special[3] = {SJ_SPECIAL_TID_X, SJ_SPECIAL_TID_Y,
                                                SJ_SPECIAL_TID_Z};

static const sj_binding *binding(const sj_lower *l, __isl_keep isl_id *id) {
  for (int i = l->nbinds - 1; i >= 0; i--)
    if (l->binds[i].id == id) return &l->binds[i];
  return NULL;
}

sj_ir_val sj_lw_id(sj_lower *l, __isl_keep isl_id *id) {
  const sj_binding *bound = binding(l, id);
  if (bound)
    return sj_irb_op(&l->b, SJ_IR_ADD, SJ_IR_S64, bound->val, sj_ir_int(SJ_IR_S64, bound->offset));
  const sj_id_kind *tag = isl_id_get_user(id);
  if (tag && (*tag == SJ_ID_BLOCK || *tag == SJ_ID_THREAD)) {
    const sj_mapped_id *mid = (const sj_mapped_id *)tag;
    return sj_irb_special(&l->b, (*tag == SJ_ID_BLOCK ? block_special : thread_special)[mid->dim]);
  }
  if (!l->free_ids_are_params) {
    sj_lw_fail(l, "an isl id bound nowhere");
    return sj_ir_int(SJ_IR_S64, 0);
  }
  /* a host loop iterator used by a kernel: a parameter of the kernel */
  for (int i = 0; i < l->nhost_ids; i++)
    if (l->host_ids[i] == id)
      return sj_irb_param(&l->b, sj_ir_find_param(l->b.f, SJ_PARAM_HOST_ITER, i));
  isl_id **grown = realloc(l->host_ids, (size_t)(l->nhost_ids + 1) * sizeof *l->host_ids);
  if (!grown) {
    out_of_memory(l);
    return sj_ir_int(SJ_IR_S64, 0);
  }
  l->host_ids = grown;
  l->host_ids[l->nhost_ids] = id;
  sj_ir_param p = {SJ_PARAM_HOST_ITER, SJ_IR_S64, l->nhost_ids++, 0, isl_id_get_name(id)};
  return sj_irb_param(&l->b, sj_ir_add_param(l->b.f, p));
}

/* --- isl expressions --- */

static long int_value(__isl_keep isl_ast_expr *e) {
  isl_val *v = isl_ast_expr_get_val(e);
  long x = isl_val_get_num_si(v);
  isl_val_free(v);
  return x;
}

static sj_ir_val iarg(sj_lower *l, __isl_keep isl_ast_expr *e, int i) {
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
  sj_ir_val v = sj_lw_iexpr(l, a);
  isl_ast_expr_free(a);
  return v;
}

static sj_ir_val icarg(sj_lower *l, __isl_keep isl_ast_expr *e, int i) {
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
  sj_ir_val v = sj_lw_icond(l, a);
  isl_ast_expr_free(a);
  return v;
}

static sj_ir_val binary(sj_lower *l, sj_ir_op op, __isl_keep isl_ast_expr *e) {
  int n = isl_ast_expr_op_get_n_arg(e);
  sj_ir_val v = iarg(l, e, 0);
  for (int i = 1; i < n; i++) v = sj_irb_op(&l->b, op, SJ_IR_S64, v, iarg(l, e, i));
  return v;
}

static const sj_ir_val no_val = {SJ_V_NONE, SJ_IR_PRED, 0, 0, 0};

/* The quotient (or remainder) of isl's divisions whose results are those of floor division:
 * exact ones, non-negative dividends, remainders compared with 0. By a positive constant
 * they are floor divisions, which the printers turn into shifts for powers of 2 (a 64-bit
 * division is a long subroutine on a GPU). */
static sj_ir_val quotient(sj_lower *l, __isl_keep isl_ast_expr *e, int remainder) {
  sj_ir_val a = iarg(l, e, 0), c = iarg(l, e, 1);
  if (c.kind != SJ_V_INT || c.i <= 0)
    return sj_irb_op(&l->b, remainder ? SJ_IR_REM : SJ_IR_DIV, SJ_IR_S64, a, c);
  sj_ir_val q = sj_irb_op(&l->b, SJ_IR_FDIV, SJ_IR_S64, a, c);
  if (!remainder) return q;
  return sj_irb_op(&l->b, SJ_IR_SUB, SJ_IR_S64, a, sj_irb_op(&l->b, SJ_IR_MUL, SJ_IR_S64, q, c));
}

sj_ir_val sj_lw_floor_mod(sj_lower *l, sj_ir_val x, long m) {
  sj_irb *b = &l->b;
  if ((m & (m - 1)) == 0) /* two's complement: the low bits are the floor remainder */
    return sj_irb_op(b, SJ_IR_BAND, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, m - 1));
  sj_ir_val q = sj_irb_op(b, SJ_IR_FDIV, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, m));
  return sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, x,
                   sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, q, sj_ir_int(SJ_IR_S64, m)));
}

sj_ir_val sj_lw_iexpr(sj_lower *l, __isl_keep isl_ast_expr *e) {
  sj_irb *b = &l->b;
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int:
    return sj_ir_int(SJ_IR_S64, int_value(e));
  case isl_ast_expr_id: {
    isl_id *id = isl_ast_expr_get_id(e);
    sj_ir_val v = sj_lw_id(l, id);
    isl_id_free(id);
    return v;
  }
  default:
    break;
  }
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_add:
    return binary(l, SJ_IR_ADD, e);
  case isl_ast_expr_op_sub:
    return binary(l, SJ_IR_SUB, e);
  case isl_ast_expr_op_mul:
    return binary(l, SJ_IR_MUL, e);
  case isl_ast_expr_op_div:    /* exact */
  case isl_ast_expr_op_pdiv_q: /* a non-negative dividend */
    return quotient(l, e, 0);
  case isl_ast_expr_op_pdiv_r: /* a non-negative dividend */
  case isl_ast_expr_op_zdiv_r: /* only compared with 0 */
    return quotient(l, e, 1);
  case isl_ast_expr_op_fdiv_q:
    return binary(l, SJ_IR_FDIV, e);
  case isl_ast_expr_op_min:
    return binary(l, SJ_IR_MIN, e);
  case isl_ast_expr_op_max:
    return binary(l, SJ_IR_MAX, e);
  case isl_ast_expr_op_minus:
    return sj_irb_op(b, SJ_IR_NEG, SJ_IR_S64, iarg(l, e, 0), no_val);
  case isl_ast_expr_op_cond:
  case isl_ast_expr_op_select:
    return sj_irb_op3(b, SJ_IR_SELP, SJ_IR_S64, iarg(l, e, 1), iarg(l, e, 2), icarg(l, e, 0));
  default: /* a comparison as a value */
    return sj_irb_op3(b, SJ_IR_SELP, SJ_IR_S64, sj_ir_int(SJ_IR_S64, 1), sj_ir_int(SJ_IR_S64, 0),
                      sj_lw_icond(l, e));
  }
}

static sj_ir_val compare(sj_lower *l, sj_ir_cmp cmp, __isl_keep isl_ast_expr *e);

sj_ir_val sj_lw_icond(sj_lower *l, __isl_keep isl_ast_expr *e) {
  sj_irb *b = &l->b;
  if (isl_ast_expr_get_type(e) == isl_ast_expr_op) {
    sj_ir_cmp cmp;
    switch (isl_ast_expr_op_get_type(e)) {
    case isl_ast_expr_op_eq:
      cmp = SJ_CMP_EQ;
      break;
    case isl_ast_expr_op_le:
      cmp = SJ_CMP_LE;
      break;
    case isl_ast_expr_op_lt:
      cmp = SJ_CMP_LT;
      break;
    case isl_ast_expr_op_ge:
      cmp = SJ_CMP_GE;
      break;
    case isl_ast_expr_op_gt:
      cmp = SJ_CMP_GT;
      break;
    case isl_ast_expr_op_and:
    case isl_ast_expr_op_and_then: /* isl's operands are pure: no need to short-circuit */
      return sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, icarg(l, e, 0), icarg(l, e, 1));
    case isl_ast_expr_op_or:
    case isl_ast_expr_op_or_else:
      return sj_irb_op(b, SJ_IR_OR, SJ_IR_PRED, icarg(l, e, 0), icarg(l, e, 1));
    default:
      return sj_irb_setp(b, SJ_CMP_NE, sj_lw_iexpr(l, e), sj_ir_int(SJ_IR_S64, 0));
    }
    if (l->in_full) return compare(l, cmp, e);
    return sj_irb_setp(b, cmp, iarg(l, e, 0), iarg(l, e, 1));
  }
  return sj_irb_setp(b, SJ_CMP_NE, sj_lw_iexpr(l, e), sj_ir_int(SJ_IR_S64, 0));
}

static int mentions(__isl_keep isl_ast_expr *e, __isl_keep isl_id *id) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    isl_id *other = isl_ast_expr_get_id(e);
    isl_id_free(other);
    return other == id;
  }
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return 0;
  int found = 0;
  for (int i = 0; i < isl_ast_expr_op_get_n_arg(e) && !found; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    found = mentions(a, id);
    isl_ast_expr_free(a);
  }
  return found;
}

__isl_give isl_ast_expr *sj_lw_upper_bound(__isl_keep isl_ast_expr *cond, __isl_keep isl_id *iter,
                                           int *strict) {
  if (isl_ast_expr_get_type(cond) != isl_ast_expr_op) return NULL;
  enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(cond);
  if (op != isl_ast_expr_op_le && op != isl_ast_expr_op_lt) return NULL;
  isl_ast_expr *it = isl_ast_expr_op_get_arg(cond, 0), *e = isl_ast_expr_op_get_arg(cond, 1);
  int ok = isl_ast_expr_get_type(it) == isl_ast_expr_id && mentions(it, iter) && !mentions(e, iter);
  isl_ast_expr_free(it);
  *strict = op == isl_ast_expr_op_lt;
  if (ok) return e;
  isl_ast_expr_free(e);
  return NULL;
}

/* --- linear forms over IR values --- */

typedef struct lin_term {
  int reg;
  long coef;
} lin_term;

typedef struct lin {
  long constant;
  int n, cap;
  lin_term *t;
} lin;

static void lin_add(lin *f, sj_ir_val v, long coef) {
  if (v.kind == SJ_V_INT) {
    f->constant += coef * v.i;
    return;
  }
  for (int i = 0; i < f->n; i++)
    if (f->t[i].reg == v.reg) {
      f->t[i].coef += coef;
      if (!f->t[i].coef) f->t[i] = f->t[--f->n]; /* cancelled (a copy's origin, less the box's) */
      return;
    }
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 8;
    f->t = realloc(f->t, (size_t)f->cap * sizeof *f->t);
    if (!f->t) abort();
  }
  f->t[f->n++] = (lin_term){v.reg, coef};
}

/* scale * e, with sums and constant products distributed; other operations are terms. */
static void lin_isl(sj_lower *l, lin *f, __isl_keep isl_ast_expr *e, long scale) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
    f->constant += scale * int_value(e);
    return;
  }
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    isl_id *id = isl_ast_expr_get_id(e);
    const sj_binding *bound = binding(l, id);
    isl_id_free(id);
    if (bound && l->expand_ranges && bound->r.kind == SJ_V_REG) { /* base + r + offset */
      if (bound->base)
        lin_isl(l, f, bound->base, scale);
      else
        f->constant += scale * bound->base_const;
      lin_add(f, bound->r, scale);
      f->constant += scale * bound->offset;
      return;
    }
    if (bound) { /* an unrolled copy: the same term, another constant */
      lin_add(f, bound->val, scale);
      f->constant += scale * bound->offset;
      return;
    }
  }
  if (isl_ast_expr_get_type(e) == isl_ast_expr_op) {
    enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(e);
    int n = isl_ast_expr_op_get_n_arg(e);
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0);
    isl_ast_expr *c = n > 1 ? isl_ast_expr_op_get_arg(e, 1) : NULL;
    int done = 1;
    if ((op == isl_ast_expr_op_add || op == isl_ast_expr_op_sub) && n == 2) {
      lin_isl(l, f, a, scale);
      lin_isl(l, f, c, op == isl_ast_expr_op_add ? scale : -scale);
    } else if (op == isl_ast_expr_op_minus) {
      lin_isl(l, f, a, -scale);
    } else if (op == isl_ast_expr_op_mul && n == 2 &&
               isl_ast_expr_get_type(a) == isl_ast_expr_int) {
      lin_isl(l, f, c, scale * int_value(a));
    } else if (op == isl_ast_expr_op_mul && n == 2 &&
               isl_ast_expr_get_type(c) == isl_ast_expr_int) {
      lin_isl(l, f, a, scale * int_value(c));
    } else {
      done = 0;
    }
    isl_ast_expr_free(a);
    isl_ast_expr_free(c);
    if (done) return;
  }
  lin_add(f, sj_lw_iexpr(l, e), scale);
}

int sj_lw_const_diff(sj_lower *l, __isl_keep isl_ast_expr *a, __isl_keep isl_ast_expr *b,
                     long *diff) {
  lin f = {0, 0, 0, NULL};
  lin_isl(l, &f, b, 1);
  lin_isl(l, &f, a, -1);
  int constant = 1;
  for (int i = 0; i < f.n; i++) constant &= f.t[i].coef == 0;
  *diff = f.constant;
  free(f.t);
  return constant;
}

int sj_lw_residue(sj_lower *l, __isl_keep isl_ast_expr *e, long m, long *r) {
  lin f = {0, 0, 0, NULL};
  lin_isl(l, &f, e, 1);
  int fixed = 1;
  for (int i = 0; i < f.n; i++) fixed &= f.t[i].coef % m == 0;
  *r = f.constant - m * sj_floor_div(f.constant, m);
  free(f.t);
  return fixed;
}

static int by_level(const void *x, const void *y, void *regs) {
  const lin_term *a = x, *b = y;
  const sj_ir_reg *r = regs;
  if (r[a->reg].level != r[b->reg].level) return r[a->reg].level - r[b->reg].level;
  return a->reg - b->reg;
}

/* Sorts the few terms of an address (insertion sort: stable and deterministic). */
static void sort_terms(lin *f, const sj_ir_reg *regs) {
  for (int i = 1; i < f->n; i++) {
    lin_term t = f->t[i];
    int j = i;
    while (j > 0 && by_level(&f->t[j - 1], &t, (void *)regs) > 0) {
      f->t[j] = f->t[j - 1];
      j--;
    }
    f->t[j] = t;
  }
}

/* The sum of terms [from, to) of f, in their order: the same terms give the same register. */
static sj_ir_val sum(sj_lower *l, const lin *f, int from, int to) {
  sj_ir_val acc = sj_ir_int(SJ_IR_S64, 0);
  for (int i = from; i < to; i++) {
    sj_ir_val term = sj_irb_op(&l->b, SJ_IR_MUL, SJ_IR_S64, sj_ir_reg_val(l->b.f, f->t[i].reg),
                               sj_ir_int(SJ_IR_S64, f->t[i].coef));
    acc = sj_irb_op(&l->b, SJ_IR_ADD, SJ_IR_S64, acc, term);
  }
  return acc;
}

/* The terms of f, those that did not cancel, in a canonical order (the same terms give the
 * same register), and where key is not NULL a hash of them: the same in sibling branches,
 * where the sums are registers of their own; frees f's terms. */
static sj_ir_val terms(sj_lower *l, lin *f, unsigned long *key) {
  int kept = 0;
  for (int i = 0; i < f->n; i++)
    if (f->t[i].coef) f->t[kept++] = f->t[i];
  f->n = kept;
  sort_terms(f, l->b.f->regs);
  for (int i = 0; key && i < f->n; i++)
    *key =
        (*key ^ (unsigned long)f->t[i].reg ^ (unsigned long)f->t[i].coef << 24) * 1099511628211ul;
  sj_ir_val v = sum(l, f, 0, f->n);
  free(f->t);
  return v;
}

sj_ir_val sj_lw_iexpr_terms(sj_lower *l, __isl_keep isl_ast_expr *e, long *constant,
                            unsigned long *key) {
  lin f = {0, 0, 0, NULL};
  lin_isl(l, &f, e, 1);
  *constant = f.constant;
  return terms(l, &f, key);
}

/* The comparison e (a cmp b) as (a - b without its constant) cmp -constant, in unrolled code:
 * the terms are the same in every copy, computed once, and only the constant changes (in a
 * loop, a - b would cost an instruction more than a cmp b). */
static sj_ir_val compare(sj_lower *l, sj_ir_cmp cmp, __isl_keep isl_ast_expr *e) {
  lin f = {0, 0, 0, NULL};
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0), *c = isl_ast_expr_op_get_arg(e, 1);
  lin_isl(l, &f, a, 1);
  lin_isl(l, &f, c, -1);
  isl_ast_expr_free(a);
  isl_ast_expr_free(c);
  sj_ir_val v = terms(l, &f, NULL);
  return sj_irb_setp(&l->b, cmp, v, sj_ir_int(SJ_IR_S64, -f.constant));
}

/* The position in the statement call of the value of iterator sym. */
static int iter_arg(const sj_pstmt *s, const sj_sym *sym) {
  for (int k = 0; k < s->depth; k++)
    if (s->iters[k] == sym) return k + 1;
  return -1;
}

static sj_ir_val uval(sj_lower *l, const sj_expr *e);

/* The row-major element offset of ref in an array of extents ext: user terms over iterators
 * expanded through the instance's iterator values, other terms computed as values. */
static void lin_ref(sj_lower *l, lin *f, const sj_expr *ref, const long *ext) {
  sj_linear form;
  sj_linearize(ref, ext, l->m->shape, &form);
  f->constant += form.constant;
  for (int i = 0; i < form.n; i++) {
    const sj_expr *atom = form.terms[i].atom;
    long coef = form.terms[i].coef;
    if (atom->kind == SJ_E_VAR && atom->sym->kind == SJ_SYM_ITER) {
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(l->call, iter_arg(l->stmt, atom->sym));
      lin value = {0, 0, 0, NULL};
      lin_isl(l, &value, arg, 1);
      isl_ast_expr_free(arg);
      f->constant += coef * value.constant;
      sort_terms(&value, l->b.f->regs);
      int n = value.n;
      const sj_ir_reg *regs = l->b.f->regs;
      if (n > 1 && regs[value.t[0].reg].level == regs[value.t[n - 1].reg].level) {
        /* one term: the iterator's value as the guards around it computed it already */
        lin_add(f, sum(l, &value, 0, n), coef);
      } else {
        for (int k = 0; k < n; k++)
          lin_add(f, sj_ir_reg_val(l->b.f, value.t[k].reg), coef * value.t[k].coef);
      }
      free(value.t);
    } else {
      lin_add(f, sj_irb_cvt(&l->b, SJ_IR_S64, uval(l, atom)), coef);
    }
  }
  sj_linear_free(&form);
}

/* base + f as a pointer and a constant offset in elements; frees f. */
static sj_ir_val address(sj_lower *l, lin *f, sj_ir_val ptr, long *offset) {
  sj_irb *b = &l->b;
  sort_terms(f, b->f->regs);
  for (int i = 0; i < f->n;) { /* a pointer per loop depth: each computed where it changes */
    int level = b->f->regs[f->t[i].reg].level, from = i;
    while (i < f->n && b->f->regs[f->t[i].reg].level == level) i++;
    ptr = sj_irb_ptradd(b, ptr, sum(l, f, from, i));
  }
  *offset = f->constant;
  free(f->t);
  return ptr;
}

/* The kernel's staged copy of array (sched/stage.c), or -1. */
static int staged_index(const sj_lower *l, int array) {
  for (int i = 0; l->kernel && i < l->kernel->nstaged; i++)
    if (l->kernel->staged[i].array == array) return i;
  return -1;
}

static sj_ir_val staged_base(sj_lower *l, int i) {
  if (l->staged_base[i].kind == SJ_V_NONE)
    l->staged_base[i] = sj_irb_shared(&l->b, i, l->kernel->staged[i].array);
  return l->staged_base[i];
}

/* f -= the origin of staged box s for the instance whose tile coordinates are the call's
 * arguments: L at first_l, S0, .. from first_s. In elements of the box, row-major. */
static void minus_origin(sj_lower *l, lin *f, const sj_staged *s, int first_l, int first_s) {
  long stride = 1;
  for (int d = s->rank - 1; d >= 0; d--) {
    f->constant -= stride * s->origin[d][0];
    for (int k = 0; k < s->ncoords; k++) {
      if (!s->origin[d][1 + k]) continue;
      isl_ast_expr *arg = isl_ast_expr_op_get_arg(l->call, k ? first_s + k - 1 : first_l);
      lin_isl(l, f, arg, -stride * s->origin[d][1 + k]);
      isl_ast_expr_free(arg);
    }
    stride *= s->size[d];
  }
}

/* ref's element in global memory as a pointer and a constant offset in elements. */
static sj_ir_val global_element(sj_lower *l, const sj_expr *ref, long *offset) {
  lin f = {0, 0, 0, NULL};
  lin_ref(l, &f, ref, sj_model_extents(l->m, ref->sym->id));
  int param = sj_ir_find_param(l->b.f, SJ_PARAM_ARRAY, ref->sym->id);
  return address(l, &f, sj_irb_param(&l->b, param), offset);
}

/* ref's element as a pointer and a constant offset in elements: in the kernel's shared copy
 * of the array when it has one. */
static sj_ir_val element(sj_lower *l, const sj_expr *ref, long *offset) {
  int staged = staged_index(l, ref->sym->id);
  if (staged < 0) return global_element(l, ref, offset);
  lin f = {0, 0, 0, NULL};
  const sj_staged *s = &l->kernel->staged[staged];
  int depth = l->stmt->depth; /* the call: iterators, then L, p, T, S0, .. */
  lin_ref(l, &f, ref, s->size);
  minus_origin(l, &f, s, depth + 1, depth + 4);
  return address(l, &f, staged_base(l, staged), offset);
}

/* offset plus the origin o (affine in the call's L, S0, .., its first arguments). */
static __isl_give isl_ast_expr *plus_origin(sj_lower *l, __isl_take isl_ast_expr *offset,
                                            const long *o, int ncoords) {
  return sj_ast_plus_origin(offset, o, ncoords, l->call);
}

/* 0 <= e < ext as e < ext unsigned, and'ed into *inside: e's terms, which unrolled copies
 * share (only the constant differs), plus the constant, and a comparison; nothing where e is a
 * constant in the array, and 0 (nothing to copy) where it is one outside. */
static int in_range(sj_lower *l, const lin *f, long ext, sj_ir_val *inside) {
  if (!f->n) return f->constant >= 0 && f->constant < ext;
  sj_ir_val terms = sum(l, f, 0, f->n);
  sj_ir_val v = sj_irb_op(&l->b, SJ_IR_ADD, SJ_IR_U64, terms, sj_ir_int(SJ_IR_U64, f->constant));
  /* unsigned also where a constant 0 left the terms as they were (a signed register) */
  v = sj_irb_cvt(&l->b, SJ_IR_U64, v);
  sj_ir_val here = sj_irb_setp(&l->b, SJ_CMP_LT, v, sj_ir_int(SJ_IR_U64, ext));
  *inside =
      inside->kind == SJ_V_NONE ? here : sj_irb_op(&l->b, SJ_IR_AND, SJ_IR_PRED, *inside, here);
  return 1;
}

static int in_array(sj_lower *l, __isl_keep isl_ast_expr *e, long ext, sj_ir_val *inside) {
  lin f = {0, 0, 0, NULL};
  lin_isl(l, &f, e, 1);
  int in = in_range(l, &f, ext, inside);
  free(f.t);
  return in;
}

/* Whether staged box s is of a flat array's view (sched/view.c) whose last row is partial: a
 * box may then hold elements past the array's end, which are not copied. */
static int past_end(const sj_lower *l, const sj_staged *s) {
  const long *view = sj_model_extents(l->m, s->array);
  long elems = 1;
  for (int d = 0; d < s->rank; d++) elems *= view[d];
  return view != l->m->extents[s->array] && elems > l->m->extents[s->array][0];
}

sj_ir_val sj_lw_spread_first(sj_lower *l, sj_ir_val tid, sj_ir_val start, sj_ir_val step,
                             long width, sj_ir_val *r) {
  sj_irb *b = &l->b;
  sj_ir_val from = start;
  if (l->spread_align.kind != SJ_V_NONE)
    from = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, start, l->spread_align);
  *r = sj_lw_floor_mod(l, sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, tid, from), width);
  return sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, start, sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, step, *r));
}

sj_ir_val sj_lw_copy_align(sj_lower *l, __isl_keep isl_ast_node *body) {
  isl_ast_node *node = isl_ast_node_copy(body);
  for (;;) {
    isl_ast_node *child;
    if (isl_ast_node_get_type(node) == isl_ast_node_mark)
      child = isl_ast_node_mark_get_node(node);
    else if (isl_ast_node_get_type(node) == isl_ast_node_for)
      child = isl_ast_node_for_get_body(node);
    else
      break;
    isl_ast_node_free(node);
    node = child;
  }
  sj_ir_val align = {0};
  if (isl_ast_node_get_type(node) == isl_ast_node_user) {
    isl_ast_expr *call = isl_ast_node_user_get_expr(node);
    const sj_id_kind *tag = sj_lw_callee(call);
    const sj_copy *c = tag && *tag == SJ_ID_COPY ? (const sj_copy *)tag : NULL;
    if (c && c->offsets) {
      const sj_staged *s = &l->kernel->staged[c->staged];
      isl_ctx *ctx = isl_ast_expr_get_ctx(call);
      lin f = {0, 0, 0, NULL};
      l->call = call;
      isl_ast_expr *o = plus_origin(l, sj_ast_int(ctx, 0), c->origin[s->rank - 1], s->ncoords);
      lin_isl(l, &f, o, 1);
      isl_ast_expr_free(o);
      l->call = NULL;
      align = sj_irb_op(&l->b, SJ_IR_ADD, SJ_IR_S64, sum(l, &f, 0, f.n),
                        sj_ir_int(SJ_IR_S64, f.constant));
      free(f.t);
    }
    isl_ast_expr_free(call);
  }
  isl_ast_node_free(node);
  return align;
}

void sj_lw_copy(sj_lower *l, __isl_keep isl_ast_expr *call, const sj_copy *c) {
  const sj_staged *s = &l->kernel->staged[c->staged];
  const long *ext = sj_model_extents(l->m, s->array);
  lin global = {0, 0, 0, NULL}, shared = {0, 0, 0, NULL};
  long gstride = 1, sstride = 1;
  sj_ir_val inside = {0};
  int outside = 0;
  l->call = call; /* copy[L, S0, .., Sn, a0, ..] */
  for (int d = s->rank - 1; d >= 0; d--) {
    isl_ast_expr *arg = isl_ast_expr_op_get_arg(call, 1 + s->ncoords + d);
    isl_ctx *ctx = isl_ast_expr_get_ctx(arg);
    const long *o = c->origin[d];
    if (c->offsets) arg = plus_origin(l, arg, o, s->ncoords);
    if (d == 0 && c->mod) { /* a time step: its plane */
      arg = isl_ast_expr_add(arg, sj_ast_int(ctx, c->shift));
      arg = isl_ast_expr_pdiv_r(arg, sj_ast_int(ctx, c->mod));
    } else if (c->clip && !(c->clamp >> d & 1)) { /* unless the window or its loop keeps in */
      if (sj_window_may_leave(o, s->ncoords, s->size[d], ext[d]) &&
          !in_array(l, arg, ext[d], &inside))
        outside = 1;
    }
    lin_isl(l, &global, arg, gstride);
    lin_isl(l, &shared, arg, sstride);
    isl_ast_expr_free(arg);
    gstride *= ext[d];
    sstride *= s->size[d];
  }
  minus_origin(l, &shared, s, 1, 2);
  if (!c->within && past_end(l, s) && !in_range(l, &global, l->m->extents[s->array][0], &inside))
    outside = 1;
  if (outside) { /* an unrolled copy of an element no tile has in the array */
    free(global.t);
    free(shared.t);
    l->call = NULL;
    return;
  }
  sj_irb_pos pos = {0};
  if (inside.kind != SJ_V_NONE) pos = sj_irb_enter(&l->b, &sj_irb_if(&l->b, inside)->then, 0);
  long goff, soff;
  int param = sj_ir_find_param(l->b.f, SJ_PARAM_ARRAY, s->array);
  sj_ir_val gptr = address(l, &global, sj_irb_param(&l->b, param), &goff);
  sj_ir_val sptr = address(l, &shared, staged_base(l, c->staged), &soff);
  sj_irb_store(&l->b, sptr, soff, sj_irb_load(&l->b, gptr, goff));
  if (inside.kind != SJ_V_NONE) sj_irb_leave(&l->b, pos);
  l->call = NULL;
}

sj_ir_type sj_lw_type(sj_type t) {
  static const sj_ir_type types[SJ_NTYPES] = {
      [SJ_TY_INT] = SJ_IR_S32,    [SJ_TY_LONG] = SJ_IR_S64,   [SJ_TY_FLOAT] = SJ_IR_F32,
      [SJ_TY_DOUBLE] = SJ_IR_F64, [SJ_TY_SCHAR] = SJ_IR_S8,   [SJ_TY_UCHAR] = SJ_IR_U8,
      [SJ_TY_SHORT] = SJ_IR_S16,  [SJ_TY_USHORT] = SJ_IR_U16, [SJ_TY_UINT] = SJ_IR_U32,
      [SJ_TY_ULONG] = SJ_IR_U64};
  return (unsigned)t < SJ_NTYPES && t != SJ_TY_VOID ? types[t] : SJ_IR_F64;
}

/* Whether evaluating e could read memory or fail: such sides of ?:, && and || are
 * evaluated only where C evaluates them. */
static int must_branch(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX) return 1;
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_DIV || e->op == SJ_OP_REM) &&
      !sj_type_is_float(e->type))
    return 1;
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_SHL || e->op == SJ_OP_SHR) &&
      e->args[1]->kind != SJ_E_INT)
    return 1;
  for (int i = 0; i < e->nargs; i++)
    if (must_branch(e->args[i])) return 1;
  return 0;
}

static sj_ir_val ucond(sj_lower *l, const sj_expr *e);

static sj_ir_val as_int(sj_lower *l, sj_ir_val pred, sj_type t) {
  return sj_irb_op3(&l->b, SJ_IR_SELP, sj_lw_type(t), sj_ir_int(sj_lw_type(t), 1),
                    sj_ir_int(sj_lw_type(t), 0), pred);
}

/* x ? then : other into a fresh variable, each side evaluated only on its branch. */
static sj_ir_val branch_select(sj_lower *l, sj_ir_val cond, const sj_expr *then,
                               const sj_expr *other, sj_ir_type t) {
  sj_irb *b = &l->b;
  int var = sj_irb_var(b, t, NULL);
  sj_ir_node *n = sj_irb_if(b, cond);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  sj_irb_assign(b, var, then ? uval(l, then) : sj_ir_int(t, 1));
  sj_irb_leave(b, pos);
  pos = sj_irb_enter(b, &n->other, 0);
  sj_irb_assign(b, var, other ? uval(l, other) : sj_ir_int(t, 0));
  sj_irb_leave(b, pos);
  return sj_ir_reg_val(b->f, var);
}

/* && and ||: the right side only where C evaluates it, when that matters. */
static sj_ir_val logic(sj_lower *l, const sj_expr *e) {
  sj_irb *b = &l->b;
  int is_and = e->op == SJ_OP_AND;
  sj_ir_val left = ucond(l, e->args[0]);
  if (!must_branch(e->args[1]))
    return sj_irb_op(b, is_and ? SJ_IR_AND : SJ_IR_OR, SJ_IR_PRED, left, ucond(l, e->args[1]));
  int var = sj_irb_var(b, SJ_IR_PRED, NULL);
  sj_irb_assign(b, var, left);
  sj_ir_val go = is_and ? left : sj_irb_op(b, SJ_IR_NOT, SJ_IR_PRED, left, no_val);
  sj_ir_node *n = sj_irb_if(b, go);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  sj_irb_assign(b, var, ucond(l, e->args[1]));
  sj_irb_leave(b, pos);
  return sj_ir_reg_val(b->f, var);
}

static sj_ir_val ucond(sj_lower *l, const sj_expr *e) {
  sj_irb *b = &l->b;
  if (e->kind == SJ_E_BINARY && e->op >= SJ_OP_LT && e->op <= SJ_OP_NE) {
    static const sj_ir_cmp cmps[] = {SJ_CMP_LT, SJ_CMP_LE, SJ_CMP_GT,
                                     SJ_CMP_GE, SJ_CMP_EQ, SJ_CMP_NE};
    return sj_irb_setp(b, cmps[e->op - SJ_OP_LT], uval(l, e->args[0]), uval(l, e->args[1]));
  }
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR)) return logic(l, e);
  if (e->kind == SJ_E_UNARY && e->op == '!')
    return sj_irb_op(b, SJ_IR_NOT, SJ_IR_PRED, ucond(l, e->args[0]), no_val);
  sj_ir_val v = uval(l, e);
  return sj_irb_setp(b, SJ_CMP_NE, v,
                     sj_ir_type_is_float(v.type) ? sj_ir_float(v.type, 0) : sj_ir_int(v.type, 0));
}

/* A trap at e's source position where bad holds: the run fails with that position. */
static void trap_at(sj_lower *l, const sj_expr *e, sj_trap_kind kind, sj_ir_val bad) {
  sj_irb *b = &l->b;
  sj_ir_module *mod = l->mod;
  sj_trap *traps = realloc(mod->traps, (size_t)(mod->ntraps + 1) * sizeof *mod->traps);
  if (!traps) {
    out_of_memory(l);
    return;
  }
  mod->traps = traps;
  mod->traps[mod->ntraps++] = (sj_trap){e->loc, kind};
  sj_ir_ins *trap = sj_irb_emit(b, SJ_IR_TRAP, SJ_IR_PRED);
  trap->a = bad;
  trap->imm = mod->ntraps; /* codes start at 1: 0 is no error */
  b->f->traps = 1;
}

/* A shift count C leaves undefined (negative, or not below the width of the shifted type)
 * fails the run, as the targets disagree on it; the count, checked, as a 32-bit value. */
static sj_ir_val checked_count(sj_lower *l, const sj_expr *e, sj_ir_type t, sj_ir_val y) {
  sj_irb *b = &l->b;
  long width = 8 * sj_ir_type_size(t);
  if (y.kind != SJ_V_INT || y.i < 0 || y.i >= width) {
    sj_ir_type u = sj_ir_type_size(y.type) == 8 ? SJ_IR_U64 : SJ_IR_U32;
    sj_ir_val bad = sj_irb_setp(b, SJ_CMP_GE, sj_irb_cvt(b, u, y), sj_ir_int(u, width));
    trap_at(l, e, SJ_TRAP_SHIFT, bad);
    y = sj_irb_op3(b, SJ_IR_SELP, y.type, sj_ir_int(y.type, 0), y, bad);
  }
  return sj_irb_cvt(b, SJ_IR_U32, y);
}

/* Integer division whose divisor may be zero, or -1 under the smallest dividend: the run
 * fails with the source position instead of trapping, and the operation gets a harmless
 * divisor. */
static sj_ir_val checked_divisor(sj_lower *l, const sj_expr *e, sj_ir_val x, sj_ir_val y) {
  sj_irb *b = &l->b;
  sj_ir_type t = y.type;
  int is_unsigned = sj_ir_type_is_unsigned(t);
  if (y.kind == SJ_V_INT && y.i != 0 && (y.i != -1 || is_unsigned)) return y;
  sj_ir_val bad = sj_irb_setp(b, SJ_CMP_EQ, y, sj_ir_int(t, 0));
  long min = t == SJ_IR_S32 ? INT_MIN : LONG_MIN;
  if (is_unsigned) {
    /* only a zero divisor fails */
  } else if (!(x.kind == SJ_V_INT && x.i != min) && !(y.kind == SJ_V_INT)) {
    sj_ir_val ov =
        sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, sj_irb_setp(b, SJ_CMP_EQ, x, sj_ir_int(t, min)),
                  sj_irb_setp(b, SJ_CMP_EQ, y, sj_ir_int(t, -1)));
    bad = sj_irb_op(b, SJ_IR_OR, SJ_IR_PRED, bad, ov);
  } else if (y.kind == SJ_V_INT && y.i == -1) {
    bad = sj_irb_setp(b, SJ_CMP_EQ, x, sj_ir_int(t, min));
  }
  trap_at(l, e, SJ_TRAP_DIVISION, bad);
  return sj_irb_op3(b, SJ_IR_SELP, t, sj_ir_int(t, 1), y, bad);
}

static int is_mul(const sj_expr *e, sj_type t) {
  return e->kind == SJ_E_BINARY && e->op == SJ_OP_MUL && e->type == t;
}

/* Fast math: a * b + c, c + a * b and a * b - c as one fma (one rounding instead of two). */
static int contract(sj_lower *l, const sj_expr *e, sj_ir_val *out) {
  sj_type t = e->type;
  if (!l->contract || !sj_type_is_float(t) || (e->op != SJ_OP_ADD && e->op != SJ_OP_SUB)) return 0;
  int left = is_mul(e->args[0], t);
  if (!left && !(e->op == SJ_OP_ADD && is_mul(e->args[1], t))) return 0;
  const sj_expr *mul = e->args[left ? 0 : 1], *other = e->args[left ? 1 : 0];
  sj_ir_val a = uval(l, mul->args[0]), c = uval(l, mul->args[1]), d = uval(l, other);
  if (e->op == SJ_OP_SUB) d = sj_irb_op(&l->b, SJ_IR_NEG, sj_lw_type(t), d, no_val);
  *out = sj_irb_op3(&l->b, SJ_IR_FMA, sj_lw_type(t), a, c, d);
  return 1;
}

/* The smallest and largest value of iterator k of the statement being lowered over its domain
 * (cached per statement and iterator: a shape's domains are constant). */
static void iter_range(sj_lower *l, int k, long *lo, long *hi) {
  const sj_pstmt *s = l->stmt;
  if (!l->ranges) {
    l->ranges = calloc((size_t)l->m->nstmts * (size_t)(l->m->max_depth + 1), sizeof *l->ranges);
    if (!l->ranges) abort();
  }
  sj_range *r = &l->ranges[s->id * (l->m->max_depth + 1) + k];
  if (!r->known) {
    r->known = sj_set_dim_range(s->domain, k, &r->lo, &r->hi) ? -1 : 1;
  }
  *lo = r->known > 0 ? r->lo : LONG_MIN;
  *hi = r->known > 0 ? r->hi : LONG_MAX;
}

/* scale * e into f where e is affine in the iterators (its terms the iterators' values in
 * this instance); *lo, *hi: bounds of e over the statement's domain. 0 when it is not. */
static int lin_user(sj_lower *l, lin *f, const sj_expr *e, long scale, long *lo, long *hi) {
  long a, b, c, d;
  if (e->kind != SJ_E_INT && e->kind != SJ_E_VAR && !sj_linear_through(e)) return 0;
  switch (e->kind) {
  case SJ_E_INT:
    f->constant += scale * e->ival;
    *lo = *hi = scale * e->ival;
    return 1;
  case SJ_E_VAR: {
    int k = e->sym->kind == SJ_SYM_ITER ? iter_arg(l->stmt, e->sym) : -1;
    if (k < 0) return 0;
    iter_range(l, k - 1, &a, &b);
    if (a == LONG_MIN || b == LONG_MAX || labs(scale) > (1l << 20)) return 0;
    isl_ast_expr *arg = isl_ast_expr_op_get_arg(l->call, k);
    lin_isl(l, f, arg, scale);
    isl_ast_expr_free(arg);
    *lo = scale > 0 ? scale * a : scale * b;
    *hi = scale > 0 ? scale * b : scale * a;
    return 1;
  }
  case SJ_E_CAST:
    return sj_type_is_integer(e->type) && sj_type_is_integer(e->args[0]->type) &&
           lin_user(l, f, e->args[0], scale, lo, hi);
  case SJ_E_UNARY:
    return e->op == '-' && lin_user(l, f, e->args[0], -scale, hi, lo) &&
           (*lo = -*lo, *hi = -*hi, 1);
  case SJ_E_BINARY:
    if (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB) {
      long s2 = e->op == SJ_OP_ADD ? scale : -scale;
      if (!lin_user(l, f, e->args[0], scale, &a, &b) || !lin_user(l, f, e->args[1], s2, &c, &d))
        return 0;
      *lo = a + c, *hi = b + d;
      return 1;
    }
    if (e->op == SJ_OP_MUL && e->args[1]->kind == SJ_E_INT && labs(e->args[1]->ival) < (1l << 20))
      return lin_user(l, f, e->args[0], scale * e->args[1]->ival, lo, hi);
    if (e->op == SJ_OP_MUL && e->args[0]->kind == SJ_E_INT && labs(e->args[0]->ival) < (1l << 20))
      return lin_user(l, f, e->args[1], scale * e->args[0]->ival, lo, hi);
    return 0;
  default:
    return 0;
  }
}

/* x % c (c > 0 a constant) where x is affine in the iterators, never negative over the
 * statement's domain (x & (c - 1) for c a power of two, of either sign), and its terms in
 * this instance are multiples of c: an unrolled copy
 * knows A[t % 2]'s buffer (t = 8 L - 8 b + 3). 1 with *out, else 0. */
static int known_remainder(sj_lower *l, const sj_expr *e, long *out) {
  const sj_expr *y = e->args[1];
  if (y->kind != SJ_E_INT || y->ival <= 0 || !l->call || !l->stmt) return 0;
  /* x & (2^k - 1) is x's remainder modulo 2^k, whatever x's sign */
  int is_mask = e->op == SJ_OP_BAND && (y->ival & (y->ival + 1)) == 0;
  if (e->op != SJ_OP_REM && !is_mask) return 0;
  long m = is_mask ? y->ival + 1 : y->ival;
  lin f = {0, 0, 0, NULL};
  long lo, hi;
  int ok = lin_user(l, &f, e->args[0], 1, &lo, &hi) && (is_mask || lo >= 0);
  for (int i = 0; ok && i < f.n; i++) ok = f.t[i].coef % m == 0;
  free(f.t);
  if (ok) *out = ((f.constant % m) + m) % m;
  return ok;
}

static sj_ir_val arith(sj_lower *l, const sj_expr *e) {
  static const sj_ir_op ops[] = {
      [SJ_OP_ADD] = SJ_IR_ADD, [SJ_OP_SUB] = SJ_IR_SUB, [SJ_OP_MUL] = SJ_IR_MUL,
      [SJ_OP_DIV] = SJ_IR_DIV, [SJ_OP_REM] = SJ_IR_REM, [SJ_OP_BAND] = SJ_IR_BAND,
      [SJ_OP_BOR] = SJ_IR_BOR, [SJ_OP_XOR] = SJ_IR_XOR, [SJ_OP_SHL] = SJ_IR_SHL,
      [SJ_OP_SHR] = SJ_IR_SHR};
  sj_ir_val out;
  if (contract(l, e, &out)) return out;
  long rem;
  if (known_remainder(l, e, &rem)) return sj_ir_int(sj_lw_type(e->type), rem);
  sj_ir_type t = sj_lw_type(e->type);
  sj_ir_val x = uval(l, e->args[0]), y = uval(l, e->args[1]);
  sj_ir_op op = ops[e->op];
  if ((op == SJ_IR_DIV || op == SJ_IR_REM) && !sj_ir_type_is_float(t))
    y = checked_divisor(l, e, x, y);
  if (op == SJ_IR_SHL || op == SJ_IR_SHR) y = checked_count(l, e, t, y);
  if (op == SJ_IR_DIV && t == SJ_IR_F32 && l->approx_div) return sj_irb_approx_div(&l->b, x, y);
  return sj_irb_op(&l->b, op, t, x, y);
}

static sj_ir_val call(sj_lower *l, const sj_expr *e) {
  /* the functions beyond the four operations, in sj_ir_math's order */
  static const sj_ir_math math[SJ_NFUNCS / 2] = {
      [SJ_FN_EXP / 2] = SJ_MATH_EXP,     [SJ_FN_EXP2 / 2] = SJ_MATH_EXP2,
      [SJ_FN_EXPM1 / 2] = SJ_MATH_EXPM1, [SJ_FN_LOG / 2] = SJ_MATH_LOG,
      [SJ_FN_LOG2 / 2] = SJ_MATH_LOG2,   [SJ_FN_LOG10 / 2] = SJ_MATH_LOG10,
      [SJ_FN_LOG1P / 2] = SJ_MATH_LOG1P, [SJ_FN_POW / 2] = SJ_MATH_POW,
      [SJ_FN_SIN / 2] = SJ_MATH_SIN,     [SJ_FN_COS / 2] = SJ_MATH_COS,
      [SJ_FN_TAN / 2] = SJ_MATH_TAN,     [SJ_FN_SINH / 2] = SJ_MATH_SINH,
      [SJ_FN_COSH / 2] = SJ_MATH_COSH,   [SJ_FN_TANH / 2] = SJ_MATH_TANH,
      [SJ_FN_FLOOR / 2] = SJ_MATH_FLOOR, [SJ_FN_CEIL / 2] = SJ_MATH_CEIL,
      [SJ_FN_TRUNC / 2] = SJ_MATH_TRUNC, [SJ_FN_ROUND / 2] = SJ_MATH_ROUND,
      [SJ_FN_FMOD / 2] = SJ_MATH_FMOD,   [SJ_FN_COPYSIGN / 2] = SJ_MATH_COPYSIGN};
  sj_ir_type t = sj_lw_type(e->type);
  sj_ir_val a = uval(l, e->args[0]);
  sj_ir_val b = e->nargs > 1 ? uval(l, e->args[1]) : no_val;
  switch (e->op) {
  case SJ_FN_SQRT:
  case SJ_FN_SQRTF:
    return sj_irb_op(&l->b, SJ_IR_SQRT, t, a, no_val);
  case SJ_FN_FABS:
  case SJ_FN_FABSF:
    return sj_irb_op(&l->b, SJ_IR_ABS, t, a, no_val);
  case SJ_FN_FMIN:
  case SJ_FN_FMINF:
    return sj_irb_op(&l->b, SJ_IR_MIN, t, a, b);
  case SJ_FN_FMAX:
  case SJ_FN_FMAXF:
    return sj_irb_op(&l->b, SJ_IR_MAX, t, a, b);
  case SJ_FN_FMA: /* one rounding at its own type: the instruction, never the double code */
  case SJ_FN_FMAF:
    return sj_irb_op3(&l->b, SJ_IR_FMA, t, a, b, uval(l, e->args[2]));
  default:
    return sj_irb_math(&l->b, math[e->op / 2], t, a, b);
  }
}

static int scalar_index(const sj_func *fn, const sj_sym *s) {
  int k = 0;
  for (int p = 0; p < s->param; p++) k += fn->params[p]->kind == SJ_SYM_SCALAR;
  return k;
}

static sj_ir_val variable(sj_lower *l, const sj_expr *e) {
  const sj_sym *s = e->sym;
  sj_irb *b = &l->b;
  switch (s->kind) {
  case SJ_SYM_SHAPE:
    return sj_ir_int(sj_lw_type(e->type), l->m->shape[s->param]);
  case SJ_SYM_SCALAR:
    return sj_irb_param(b, sj_ir_find_param(b->f, SJ_PARAM_SCALAR, scalar_index(l->m->fn, s)));
  case SJ_SYM_LOCAL: {
    const sj_expr *mem = sj_model_replaced(l->m, e);
    if (mem) {
      long offset;
      sj_ir_val ptr = element(l, mem, &offset);
      return sj_irb_load(b, ptr, offset);
    }
    if (!l->local_var[s->id]) {
      sj_lw_fail(l, "a local read before its declaration");
      return sj_ir_int(sj_lw_type(e->type), 0);
    }
    return sj_ir_reg_val(b->f, l->local_var[s->id]);
  }
  default: { /* an iterator: of its C type (int, long, unsigned) */
    isl_ast_expr *arg = isl_ast_expr_op_get_arg(l->call, iter_arg(l->stmt, s));
    sj_ir_val v = sj_lw_iexpr(l, arg);
    isl_ast_expr_free(arg);
    return sj_irb_cvt(b, sj_lw_type(s->type), v);
  }
  }
}

static sj_ir_val uval(sj_lower *l, const sj_expr *e) {
  sj_irb *b = &l->b;
  switch (e->kind) {
  case SJ_E_INT:
    return sj_ir_int(sj_lw_type(e->type), e->ival);
  case SJ_E_FLOAT:
    return sj_ir_float(sj_lw_type(e->type), e->fval);
  case SJ_E_VAR:
    return variable(l, e);
  case SJ_E_INDEX: {
    const sj_expr *mem = sj_model_replaced(l->m, e); /* a local's, or a view's element */
    long offset;
    sj_ir_val ptr = element(l, mem ? mem : e, &offset);
    return sj_irb_load(b, ptr, offset);
  }
  case SJ_E_UNARY:
    if (e->op == '-')
      return sj_irb_op(b, SJ_IR_NEG, sj_lw_type(e->type), uval(l, e->args[0]), no_val);
    if (e->op == '~') /* every bit flipped: ^ with all ones */
      return sj_irb_op(b, SJ_IR_XOR, sj_lw_type(e->type), uval(l, e->args[0]),
                       sj_irb_cvt(b, sj_lw_type(e->type), sj_ir_int(SJ_IR_S64, -1)));
    break; /* ! is a condition */
  case SJ_E_BINARY:
    if (e->op <= SJ_OP_SHR) return arith(l, e);
    break;
  case SJ_E_COND: {
    sj_ir_val p = ucond(l, e->args[0]);
    if (must_branch(e->args[1]) || must_branch(e->args[2]))
      return branch_select(l, p, e->args[1], e->args[2], sj_lw_type(e->type));
    return sj_irb_op3(b, SJ_IR_SELP, sj_lw_type(e->type), uval(l, e->args[1]), uval(l, e->args[2]),
                      p);
  }
  case SJ_E_CAST:
    return sj_irb_cvt(b, sj_lw_type(e->type), uval(l, e->args[0]));
  case SJ_E_CALL:
    return call(l, e);
  }
  return as_int(l, ucond(l, e), e->type); /* a condition as an int value */
}

sj_ir_op sj_lw_red_op(sj_red_op op) {
  static const sj_ir_op ir[] = {
      [SJ_RED_ADD] = SJ_IR_ADD,  [SJ_RED_MIN] = SJ_IR_MIN, [SJ_RED_MAX] = SJ_IR_MAX,
      [SJ_RED_AND] = SJ_IR_BAND, [SJ_RED_OR] = SJ_IR_BOR,  [SJ_RED_XOR] = SJ_IR_XOR,
      [SJ_RED_SET] = SJ_IR_MAX};
  return ir[op];
}

sj_ir_val sj_lw_red_identity(sj_red_op op, sj_ir_type t) {
  static const long lowest[SJ_IR_NTYPES] = {[SJ_IR_S32] = INT_MIN, [SJ_IR_S64] = LONG_MIN};
  static const long highest[SJ_IR_NTYPES] = {[SJ_IR_S32] = INT_MAX,
                                             [SJ_IR_S64] = LONG_MAX,
                                             [SJ_IR_U32] = (long)UINT_MAX,
                                             [SJ_IR_U64] = -1};
  if (sj_ir_type_is_float(t)) return sj_ir_float(t, op == SJ_RED_ADD ? -0.0 : NAN);
  if (op == SJ_RED_MIN) return sj_ir_int(t, highest[t]);
  if (op == SJ_RED_AND) return sj_ir_int(t, t == SJ_IR_U32 ? (long)UINT_MAX : -1); /* all ones */
  return sj_ir_int(t, op == SJ_RED_MAX ? lowest[t] : 0);
}

/* A constant set's partial is a flag, 1 where an instance set the element (a maximum). */
sj_ir_type sj_lw_red_type(const sj_reduction *r) {
  return r->op == SJ_RED_SET ? SJ_IR_S32 : sj_lw_type(r->stmt->body[r->body]->lhs->type);
}

/* A reduction's assignment under a `reduce` mark (astgen/lower_reduce.c): its term into the
 * thread's partial, and the element's address kept for the combination at the end of the
 * kernel. 1 when assignment k of the statement is one. */
static int accumulate(sj_lower *l, int k) {
  sj_irb *b = &l->b;
  for (int i = 0; i < l->reduce->n; i++) {
    const sj_reduction *r = &l->reduce->r[i];
    if (r->stmt != l->stmt || r->body != k) continue;
    const sj_stmt *st = l->stmt->body[k];
    sj_ir_type t = sj_lw_red_type(r);
    sj_expr one = {.kind = SJ_E_INT, .type = SJ_TY_INT, .loc = st->loc, .ival = 1};
    const sj_expr *e = r->op == SJ_RED_SET ? &one : r->acc->args[r->operand];
    sj_expr id, *choice[3];
    sj_expr guarded = {SJ_E_COND, e->type, e->loc, 0, 0, 0, 0, NULL, 3, choice};
    if (r->guard) { /* the identity where the guard fails (negated for x - e) */
      sj_ir_val v = sj_lw_red_identity(r->op, sj_lw_type(e->type));
      int fl = sj_ir_type_is_float(v.type);
      id = (sj_expr){fl ? SJ_E_FLOAT : SJ_E_INT,  e->type, e->loc, 0,   0, v.i,
                     fl && r->negate ? 0.0 : v.f, NULL,    0,      NULL};
      choice[0] = (sj_expr *)r->guard;
      choice[1] = r->guard_else ? &id : (sj_expr *)e;
      choice[2] = r->guard_else ? (sj_expr *)e : &id;
      e = &guarded;
    }
    sj_ir_val term = sj_irb_cvt(b, t, uval(l, e));
    if (r->negate) term = sj_irb_op(b, SJ_IR_NEG, t, term, (sj_ir_val){0});
    sj_ir_val sum = sj_irb_op(b, sj_lw_red_op(r->op), t, sj_ir_reg_val(b->f, l->partial[i]), term);
    sj_irb_assign(b, l->partial[i], sum);
    long offset;
    const sj_expr *mem = sj_model_replaced(l->m, st->lhs);
    sj_ir_val ptr = element(l, mem ? mem : st->lhs, &offset);
    sj_irb_assign(b, l->target[i], sj_irb_ptradd(b, ptr, sj_ir_int(SJ_IR_S64, offset)));
    return 1;
  }
  return 0;
}

/* A condition known where it is lowered: 1 or 0, or -1 and its predicate in v. */
typedef struct known_cond {
  int known;
  sj_ir_val v;
} known_cond;

/* Whether comparison e (a op b) holds for every thread or for none, from the ranges of the
 * spread copies bound around it: a - b as a linear form in which everything but those
 * threads' offsets r cancels (a full tile's bound and the loop's start share their terms). */
static int decide(sj_lower *l, __isl_keep isl_ast_expr *e, enum isl_ast_expr_op_type op) {
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, 0), *b = isl_ast_expr_op_get_arg(e, 1);
  lin f = {0, 0, 0, NULL};
  l->expand_ranges = 1;
  lin_isl(l, &f, a, 1);
  lin_isl(l, &f, b, -1);
  l->expand_ranges = 0;
  isl_ast_expr_free(a);
  isl_ast_expr_free(b);
  long lo = f.constant, hi = f.constant; /* of a - b */
  int ok = 1;
  for (int i = 0; i < f.n && ok; i++) {
    if (!f.t[i].coef) continue;
    const sj_binding *r = NULL;
    for (int k = 0; k < l->nbinds && !r; k++)
      if (l->binds[k].r.kind == SJ_V_REG && l->binds[k].r.reg == f.t[i].reg) r = &l->binds[k];
    ok = r != NULL;
    if (ok) *(f.t[i].coef > 0 ? &hi : &lo) += f.t[i].coef * r->span;
  }
  free(f.t);
  if (!ok) return -1;
  switch (op) {
  case isl_ast_expr_op_le:
    return hi <= 0 ? 1 : lo > 0 ? 0 : -1;
  case isl_ast_expr_op_lt:
    return hi < 0 ? 1 : lo >= 0 ? 0 : -1;
  case isl_ast_expr_op_ge:
    return lo >= 0 ? 1 : hi < 0 ? 0 : -1;
  case isl_ast_expr_op_gt:
    return lo > 0 ? 1 : hi <= 0 ? 0 : -1;
  case isl_ast_expr_op_eq:
    return lo == 0 && hi == 0 ? 1 : lo > 0 || hi < 0 ? 0 : -1;
  default:
    return -1;
  }
}

static int is_junction(__isl_keep isl_ast_expr *e, int conj) {
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) return 0;
  enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(e);
  return conj ? op == isl_ast_expr_op_and || op == isl_ast_expr_op_and_then
              : op == isl_ast_expr_op_or || op == isl_ast_expr_op_or_else;
}

/* The innermost binding of an iterator to one of several unrolled copies that e reads, plus 1
 * (0: none): the copies of that loop differ in e, those of loops around it do not. */
static int copy_depth(const sj_lower *l, __isl_keep isl_ast_expr *e) {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_id) {
    isl_id *id = isl_ast_expr_get_id(e);
    const sj_binding *bound = binding(l, id);
    isl_id_free(id);
    return bound && bound->copies ? (int)(bound - l->binds) + 1 : 0;
  }
  int depth = 0;
  for (int i = 0; isl_ast_expr_get_type(e) == isl_ast_expr_op && i < isl_ast_expr_op_get_n_arg(e);
       i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
    int d = copy_depth(l, a);
    isl_ast_expr_free(a);
    if (d > depth) depth = d;
  }
  return depth;
}

static known_cond guard_cond(sj_lower *l, __isl_keep isl_ast_expr *e);

typedef struct junction {
  int conj, decided, n;
  sj_ir_val v[64];
  int depth[64]; /* of v[i]: copy_depth */
} junction;

/* The operands of a chain of one junction into j, each with what is known folded: where one
 * decides the whole, j->decided. */
static void junction_terms(sj_lower *l, __isl_keep isl_ast_expr *e, junction *j) {
  if (j->decided) return;
  if (is_junction(e, j->conj)) {
    for (int i = 0; i < 2; i++) {
      isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
      junction_terms(l, a, j);
      isl_ast_expr_free(a);
    }
    return;
  }
  known_cond c = guard_cond(l, e);
  if (c.known == !j->conj) j->decided = 1;
  if (c.known >= 0) return; /* the neutral value */
  int depth = copy_depth(l, e);
  if (j->n == (int)(sizeof j->v / sizeof *j->v)) { /* folded into the last */
    j->v[j->n - 1] =
        sj_irb_op(&l->b, j->conj ? SJ_IR_AND : SJ_IR_OR, SJ_IR_PRED, j->v[j->n - 1], c.v);
    if (depth > j->depth[j->n - 1]) j->depth[j->n - 1] = depth;
    return;
  }
  j->depth[j->n] = depth;
  j->v[j->n++] = c.v;
}

/* Condition e (comparisons joined by and and or) with what is known per copy folded. The
 * operands of a chain are joined from those on outer copies' iterators to those on inner
 * ones: the copies of a loop share what reads none of its iterators (a column's faces, once a
 * step), and each adds only its own (its row's faces). */
static known_cond guard_cond(sj_lower *l, __isl_keep isl_ast_expr *e) {
  known_cond res = {-1, {0}};
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op || isl_ast_expr_op_get_n_arg(e) != 2) {
    res.v = sj_lw_icond(l, e);
    return res;
  }
  enum isl_ast_expr_op_type op = isl_ast_expr_op_get_type(e);
  int conj = is_junction(e, 1);
  if (conj || is_junction(e, 0)) {
    junction j = {conj, 0, 0, {{0}}, {0}};
    junction_terms(l, e, &j);
    if (j.decided || !j.n) {
      res.known = j.decided ? !conj : conj;
      return res;
    }
    for (int done = 0; done < j.n; done++) { /* the shallowest left, the first of those */
      int next = -1;
      for (int i = 0; i < j.n; i++)
        if (j.depth[i] >= 0 && (next < 0 || j.depth[i] < j.depth[next])) next = i;
      res.v = res.v.kind == SJ_V_NONE
                  ? j.v[next]
                  : sj_irb_op(&l->b, conj ? SJ_IR_AND : SJ_IR_OR, SJ_IR_PRED, res.v, j.v[next]);
      j.depth[next] = -1;
    }
    return res;
  }
  res.known = decide(l, e, op);
  if (res.known < 0) res.v = sj_lw_icond(l, e);
  return res;
}

/* Whether e reads the element ref (a local's: the element that stands for it where e is, which
 * for a value carried from the iteration before is not the one assigned). */
static int same_element(const sj_lower *l, const sj_expr *e, const sj_expr *ref) {
  const sj_expr *mem = sj_model_replaced(l->m, e);
  return sj_expr_same(mem ? mem : e, ref);
}

static void body_stmt(sj_lower *l, int k) {
  const sj_stmt *st = l->stmt->body[k];
  if (l->reduce && accumulate(l, k)) return;
  sj_irb *b = &l->b;
  const sj_expr *mem = sj_model_replaced(l->m, st->kind == SJ_S_DECL ? (const void *)st : st->lhs);
  if (!mem && (st->kind == SJ_S_DECL || st->lhs->kind == SJ_E_VAR)) {
    /* a local private to the instance: a variable, made at its first assignment */
    const sj_sym *s = st->kind == SJ_S_DECL ? st->sym : st->lhs->sym;
    if (!st->rhs) return;
    if (!l->local_var[s->id]) l->local_var[s->id] = sj_irb_var(b, sj_lw_type(s->type), s->name);
    sj_irb_assign(b, l->local_var[s->id], uval(l, st->rhs));
    return;
  }
  long offset;
  const sj_expr *ref = mem ? mem : st->lhs;
  if (staged_index(l, ref->sym->id) < 0) {
    /* x = c ? e : x (a data if, a test of convergence): a store only where c holds; where it
     * fails the element keeps its value without a load and a store */
    const sj_expr *rhs = st->rhs;
    int kept = rhs->kind == SJ_E_COND ? same_element(l, rhs->args[2], ref)   ? 2
                                        : same_element(l, rhs->args[1], ref) ? 1
                                                                             : 0
                                      : 0;
    sj_irb_pos pos = {0};
    if (kept) {
      sj_ir_node *n = sj_irb_if(b, ucond(l, rhs->args[0]));
      pos = sj_irb_enter(b, kept == 2 ? &n->then : &n->other, 0);
      rhs = rhs->args[3 - kept];
    }
    sj_ir_val v = uval(l, rhs), ptr = element(l, ref, &offset);
    sj_irb_store(b, ptr, offset, v);
    if (kept) sj_irb_leave(b, pos);
    return;
  }
  sj_ir_val v = uval(l, st->rhs);
  sj_ir_val ptr = element(l, ref, &offset);
  sj_irb_store(b, ptr, offset, v);
  /* written through where another tile or the caller may read it (sched/liveout.c) */
  if (l->guard && !l->guard->store) return;
  sj_irb_pos pos = {0};
  if (l->guard) {
    if (l->store_known < -1) {
      known_cond c = guard_cond(l, l->guard->store);
      l->store_known = c.known;
      l->store_ok = c.v;
    }
    if (!l->store_known) return;
    if (l->store_known < 0) pos = sj_irb_enter(b, &sj_irb_if(b, l->store_ok)->then, 0);
  }
  ptr = global_element(l, ref, &offset);
  sj_irb_store(b, ptr, offset, v);
  if (l->guard && l->store_known < 0) sj_irb_leave(b, pos);
}

const sj_id_kind *sj_lw_callee(__isl_keep isl_ast_expr *call) {
  isl_ast_expr *fn = isl_ast_expr_get_op_arg(call, 0);
  isl_id *id = isl_ast_expr_get_id(fn);
  const sj_id_kind *tag = id ? isl_id_get_user(id) : NULL;
  isl_id_free(id); /* the schedule keeps what it points to */
  isl_ast_expr_free(fn);
  return tag;
}

void sj_lw_stmt(sj_lower *l, __isl_keep isl_ast_expr *call, __isl_keep isl_ast_node *node) {
  const sj_id_kind *tag = sj_lw_callee(call);
  if (!tag || *tag != SJ_ID_STMT) {
    sj_lw_fail(l, "a call of something that is not a statement");
    return;
  }
  l->stmt = (const sj_pstmt *)tag;
  l->call = call;
  isl_id *id = isl_ast_node_get_annotation(node);
  const sj_store_guard *g = id ? isl_id_get_user(id) : NULL;
  l->guard = g && g->tag == SJ_ID_STORE_GUARD ? g : NULL;
  l->store_known = -2; /* not yet lowered */
  isl_id_free(id);     /* the node keeps it */
  for (int k = 0; k < l->stmt->nbody && !l->failed; k++) body_stmt(l, k);
  l->guard = NULL;
  l->call = NULL;
}
