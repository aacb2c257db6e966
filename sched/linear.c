#include "sched/linear.h"

#include <stdlib.h>

#include "sched/affine.h"

static void add(sj_linear *l, long coef, const sj_expr *atom) {
  for (int i = 0; i < l->n; i++) {
    const sj_expr *a = l->terms[i].atom;
    if (a == atom || (a->kind == SJ_E_VAR && atom->kind == SJ_E_VAR && a->sym == atom->sym)) {
      l->terms[i].coef += coef;
      return;
    }
  }
  l->terms = realloc(l->terms, (l->n + 1) * sizeof *l->terms);
  l->terms[l->n++] = (sj_term){coef, atom};
}

int sj_linear_through(const sj_expr *e) {
  if (!sj_type_is_integer(e->type)) return 0;
  if (e->kind == SJ_E_CAST) {
    sj_type from = e->args[0]->type, to = e->type;
    int wide = sj_type_size(to), narrow = sj_type_size(from);
    if (!sj_type_is_integer(from)) return 0;
    if (wide == 8) return 1; /* the same bits as the offsets' arithmetic */
    return sj_type_is_unsigned(from) == sj_type_is_unsigned(to)
               ? wide >= narrow
               : !sj_type_is_unsigned(to) && wide > narrow; /* unsigned char -> int */
  }
  int arith =
      (e->kind == SJ_E_UNARY && e->op == '-') ||
      (e->kind == SJ_E_BINARY && (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB || e->op == SJ_OP_MUL));
  /* int's overflow is undefined: computed as if it had none */
  return arith && e->type != SJ_TY_UINT;
}

static void linearize(sj_linear *l, const sj_expr *e, long scale, const long *shape) {
  long c;
  if (sj_const_value(e, shape, &c) == 0) {
    l->constant += scale * c;
    return;
  }
  if (e->kind != SJ_E_VAR && !sj_linear_through(e)) {
    add(l, scale, e); /* a value of its own: computed as C does */
    return;
  }
  switch (e->kind) {
  case SJ_E_VAR:
    add(l, scale, e);
    return;
  case SJ_E_UNARY:
    if (e->op == '-') {
      linearize(l, e->args[0], -scale, shape);
      return;
    }
    break;
  case SJ_E_CAST:
    if (!sj_type_is_float(e->args[0]->type)) {
      linearize(l, e->args[0], scale, shape);
      return;
    }
    break;
  case SJ_E_BINARY:
    if (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB) {
      linearize(l, e->args[0], scale, shape);
      linearize(l, e->args[1], e->op == SJ_OP_ADD ? scale : -scale, shape);
      return;
    }
    if (e->op == SJ_OP_MUL && sj_const_value(e->args[0], shape, &c) == 0) {
      linearize(l, e->args[1], scale * c, shape);
      return;
    }
    if (e->op == SJ_OP_MUL && sj_const_value(e->args[1], shape, &c) == 0) {
      linearize(l, e->args[0], scale * c, shape);
      return;
    }
    break;
  default:
    break;
  }
  add(l, scale, e);
}

void sj_linearize(const sj_expr *ref, const long *ext, const long *shape, sj_linear *out) {
  out->constant = 0;
  out->n = 0;
  out->terms = NULL;
  long stride = 1;
  for (int k = ref->nargs - 1; k >= 0; k--) {
    linearize(out, ref->args[k], stride, shape);
    stride *= ext[k];
  }
  int kept = 0;
  for (int i = 0; i < out->n; i++)
    if (out->terms[i].coef) out->terms[kept++] = out->terms[i];
  out->n = kept;
}

void sj_linear_free(sj_linear *l) {
  free(l->terms);
  l->terms = NULL;
  l->n = 0;
}

int sj_expr_depends(const sj_expr *e, int (*depends)(const sj_sym *iter, void *user), void *user) {
  if (e->kind == SJ_E_VAR) return e->sym->kind == SJ_SYM_ITER && depends(e->sym, user);
  for (int i = 0; i < e->nargs; i++)
    if (sj_expr_depends(e->args[i], depends, user)) return 1;
  return 0;
}
