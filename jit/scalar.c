/* A local array of one element whose every access is element 0 (`double r[1];`, as the call
 * of a function computing its value with loops passes for its result) is a scalar local: the
 * model keeps a scalar private to a point in a register, where an array element lives in
 * memory. Where the one assignment of such a local comes right before the one statement that
 * reads it, once, its value is written there instead (the call `f(a, i)` of a function whose
 * body is `return a[i - 1] + a[i + 1];` then costs what the expression does): nothing runs
 * between the two, so it evaluates to the same bits. So does a scalar declared with its value
 * and read only by the statements right after it (forward_value). */
#include "jit/parse.h"

static int is_cell(const sj_sym *x) {
  return x->kind == SJ_SYM_LOCAL && x->rank == 1 && x->extents[0]->kind == SJ_E_INT &&
         x->extents[0]->ival == 1;
}

/* Whether every access of x in e is x[0]. */
static int only_first(const sj_expr *e, const sj_sym *x) {
  if (!e) return 1;
  if (e->sym == x && (e->kind != SJ_E_INDEX || e->implicit || e->nargs != 1 ||
                      e->args[0]->kind != SJ_E_INT || e->args[0]->ival != 0))
    return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!only_first(e->args[i], x)) return 0;
  return 1;
}

static int only_first_in(const sj_stmt *st, const sj_sym *x) {
  if (!st) return 1;
  if (!only_first(st->init, x) || !only_first(st->cond, x) || !only_first(st->lhs, x) ||
      !only_first(st->rhs, x))
    return 0;
  for (int i = 0; i < st->nbody; i++)
    if (!only_first_in(st->body[i], x)) return 0;
  return 1;
}

static void to_scalar(sj_expr *e, const sj_sym *x) {
  if (!e) return;
  if (e->kind == SJ_E_INDEX && e->sym == x) {
    e->kind = SJ_E_VAR;
    e->nargs = 0;
    e->args = NULL;
    return;
  }
  for (int i = 0; i < e->nargs; i++) to_scalar(e->args[i], x);
}

static void to_scalar_in(sj_stmt *st, const sj_sym *x) {
  if (!st) return;
  to_scalar(st->init, x);
  to_scalar(st->cond, x);
  to_scalar(st->lhs, x);
  to_scalar(st->rhs, x);
  for (int i = 0; i < st->nbody; i++) to_scalar_in(st->body[i], x);
}

static int reads(const sj_expr *e, const sj_sym *x) {
  if (!e) return 0;
  int n = e->kind == SJ_E_VAR && e->sym == x;
  for (int i = 0; i < e->nargs; i++) n += reads(e->args[i], x);
  return n;
}

/* How many times st reads the scalar x, and (*writes) assigns it. */
static int uses(const sj_stmt *st, const sj_sym *x, int *writes) {
  if (!st) return 0;
  int n = reads(st->init, x) + reads(st->cond, x) + reads(st->rhs, x);
  if (st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR && st->lhs->sym == x)
    ++*writes;
  else
    n += reads(st->lhs, x);
  for (int i = 0; i < st->nbody; i++) n += uses(st->body[i], x, writes);
  return n;
}

static sj_expr *substitute(sj_expr *e, const sj_sym *x, sj_expr *value) {
  if (!e) return NULL;
  if (e->kind == SJ_E_VAR && e->sym == x) return value;
  for (int i = 0; i < e->nargs; i++) e->args[i] = substitute(e->args[i], x, value);
  return e;
}

/* value in place of the scalar x in the assignment or declaration user. */
static void put_value(sj_stmt *user, const sj_sym *x, sj_expr *value) {
  user->rhs = substitute(user->rhs, x, value);
  if (user->kind == SJ_S_ASSIGN) user->lhs = substitute(user->lhs, x, value);
}

static void drop(sj_stmt *block, int k) {
  for (int i = k; i + 1 < block->nbody; i++) block->body[i] = block->body[i + 1];
  block->nbody--;
}

/* The scalar declared at block->body[k]: its value written into the statement that reads it,
 * where that statement comes right after its one assignment; the two statements dropped. */
static void forward(sj_stmt *block, int k, const sj_stmt *body) {
  const sj_sym *x = block->body[k]->sym;
  int writes = 0;
  if (uses(body, x, &writes) != 1 || writes != 1) return;
  for (int j = k + 1; j + 1 < block->nbody; j++) {
    sj_stmt *set = block->body[j], *user = block->body[j + 1];
    if (set->kind != SJ_S_ASSIGN || set->lhs->kind != SJ_E_VAR || set->lhs->sym != x) continue;
    if (user->kind != SJ_S_ASSIGN && (user->kind != SJ_S_DECL || !user->rhs)) return;
    int none = 0;
    if (uses(user, x, &none) != 1) return;
    put_value(user, x, set->rhs);
    drop(block, j);
    drop(block, k);
    return;
  }
}

/* e's value (*v) where it is a literal or computed from sizes that shape gives (NULL: none). */
static int value_of(const sj_expr *e, const long *shape, long *v) {
  long a, b;
  switch (e->kind) {
  case SJ_E_INT:
    *v = e->ival;
    return 1;
  case SJ_E_VAR:
    if (!shape || e->sym->kind != SJ_SYM_SHAPE || e->sym->param < 0) return 0;
    *v = shape[e->sym->param];
    return 1;
  case SJ_E_CAST:
    return value_of(e->args[0], shape, v);
  case SJ_E_BINARY:
    if (e->op != SJ_OP_ADD && e->op != SJ_OP_SUB && e->op != SJ_OP_MUL) return 0;
    if (!value_of(e->args[0], shape, &a) || !value_of(e->args[1], shape, &b)) return 0;
    *v = e->op == SJ_OP_ADD ? a + b : e->op == SJ_OP_SUB ? a - b : a * b;
    return 1;
  default:
    return 0;
  }
}

/* The part of the subscript e that is not a constant offset (NULL where all of it is), and
 * the offset (`i + 1`: i and 1; `N - 2`: NULL and the value). */
static const sj_expr *offset(const sj_expr *e, const long *shape, long *c) {
  while (e->kind == SJ_E_CAST) e = e->args[0];
  *c = 0;
  if (value_of(e, shape, c)) return NULL;
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB) &&
      value_of(e->args[1], shape, c)) {
    *c = e->op == SJ_OP_ADD ? *c : -*c;
    return e->args[0];
  }
  return e;
}

/* Whether the elements a and b are different ones for any values of the other names: of two
 * arrays (which the model too takes as apart: the arguments may not overlap), or in some
 * dimension the subscripts are one expression plus different constants. */
static int distinct(const sj_expr *a, const sj_expr *b, const long *shape) {
  if (a->sym != b->sym) return 1;
  for (int k = 0; k < a->nargs && k < b->nargs; k++) {
    long ca, cb;
    const sj_expr *xa = offset(a->args[k], shape, &ca), *xb = offset(b->args[k], shape, &cb);
    if (ca != cb && (xa == xb || (xa && xb && sj_expr_same(xa, xb)))) return 1;
  }
  return 0;
}

/* Whether the statement st leaves alone everything e reads. */
static int untouched(const sj_expr *e, const sj_stmt *st, const long *shape) {
  if (st->kind == SJ_S_DECL) return 1; /* a local e cannot name: declared after it */
  if (st->lhs->kind == SJ_E_VAR) return !reads(e, st->lhs->sym);
  if (e->kind == SJ_E_INDEX && !distinct(e, st->lhs, shape)) return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!untouched(e->args[i], st, shape)) return 0;
  return 1;
}

/* The operators of e outside its subscripts; a call counts for many. */
static int work(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX || e->kind == SJ_E_VAR) return 0;
  int n = e->kind == SJ_E_CALL ? 100 : e->kind != SJ_E_CAST && e->nargs > 0;
  for (int i = 0; i < e->nargs; i++) n += work(e->args[i]);
  return n;
}

/* The scalar declared with its value at block->body[k] (`float l = A[i][1];`), never assigned
 * and read only by assignments and declarations after it in the block, once each: its value
 * written in each and the declaration dropped. Two writes at two places in one loop
 * (`A[i][0] = l; A[i][M - 1] = r;`) are then array assignments alone, which the model makes a
 * statement each. The value is the same bits: the declaration converted it to the local's
 * type, and nothing up to its last reader writes an element or local it reads (shape: the
 * sizes, where known, tell subscripts apart). Several readers evaluate it again: only a value
 * of little work. */
static int forward_value(sj_arena *a, sj_stmt *block, int k, const sj_stmt *body,
                         const long *shape) {
  const sj_stmt *d = block->body[k];
  int writes = 0, total = uses(body, d->sym, &writes), readers = 0, last = k;
  if (d->sym->rank || writes || total < 1) return 0;
  while (readers < total && ++last < block->nbody) {
    const sj_stmt *st = block->body[last];
    int none = 0, n = uses(st, d->sym, &none);
    if (n > 1 || (st->kind != SJ_S_ASSIGN && (st->kind != SJ_S_DECL || !st->rhs))) return 0;
    readers += n;
  }
  if (readers != total || (readers > 1 && work(d->rhs) > 2)) return 0;
  for (int j = k + 1; j < last; j++)
    if (!untouched(d->rhs, block->body[j], shape)) return 0;
  for (int j = k + 1, seen = 0; j <= last; j++) {
    sj_stmt *user = block->body[j];
    int none = 0;
    if (!uses(user, d->sym, &none)) continue;
    put_value(user, d->sym, ++seen == readers ? d->rhs : sj_expr_copy(a, d->rhs));
  }
  drop(block, k);
  return 1;
}

/* Every value forward_value can write where it is read, in st; last first, so that the
 * readers of a declaration are final when it is reached. */
static void forward_values(sj_arena *a, sj_stmt *st, const sj_stmt *body, const long *shape) {
  if (!st) return;
  for (int i = 0; i < st->nbody; i++) forward_values(a, st->body[i], body, shape);
  for (int k = st->kind == SJ_S_BLOCK ? st->nbody - 1 : -1; k >= 0; k--)
    if (st->body[k]->kind == SJ_S_DECL && st->body[k]->rhs) forward_value(a, st, k, body, shape);
}

void sj_forward_values(sj_arena *a, sj_func *fn, const long *shape) {
  forward_values(a, fn->body, fn->body, shape);
}

/* Each declaration in st of a cell that body accesses only as x[0] becomes a scalar's. */
static void cells(sj_stmt *st, sj_stmt *body) {
  if (!st) return;
  for (int i = 0; i < st->nbody; i++) cells(st->body[i], body);
  for (int k = 0; st->kind == SJ_S_BLOCK && k < st->nbody; k++) {
    sj_stmt *d = st->body[k];
    if (d->kind != SJ_S_DECL || d->rhs || !is_cell(d->sym) || !only_first_in(body, d->sym))
      continue;
    to_scalar_in(body, d->sym);
    d->sym->rank = 0;
    d->sym->extents = NULL;
    forward(st, k, body);
  }
}

void sj_scalar_cells(sj_program *p) {
  for (int i = 0; i < p->nfuncs; i++) {
    cells(p->funcs[i]->body, p->funcs[i]->body);
    sj_forward_values(p->arena, p->funcs[i], NULL);
  }
}
