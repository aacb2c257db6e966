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
    user->rhs = substitute(user->rhs, x, set->rhs);
    if (user->kind == SJ_S_ASSIGN) user->lhs = substitute(user->lhs, x, set->rhs);
    for (int i = j; i + 1 < block->nbody; i++) block->body[i] = block->body[i + 1];
    for (int i = k; i + 1 < block->nbody - 1; i++) block->body[i] = block->body[i + 1];
    block->nbody -= 2;
    return;
  }
}

/* The part of the subscript e that is not a constant offset (NULL for a literal), and the
 * offset (`i + 1`: i and 1). */
static const sj_expr *offset(const sj_expr *e, long *c) {
  while (e->kind == SJ_E_CAST) e = e->args[0];
  *c = 0;
  if (e->kind == SJ_E_INT) {
    *c = e->ival;
    return NULL;
  }
  if (e->kind == SJ_E_BINARY && (e->op == SJ_OP_ADD || e->op == SJ_OP_SUB) &&
      e->args[1]->kind == SJ_E_INT) {
    *c = e->op == SJ_OP_ADD ? e->args[1]->ival : -e->args[1]->ival;
    return e->args[0];
  }
  return e;
}

/* Whether the elements a and b are different ones for any values of the names: of two arrays
 * (which the model too takes as apart: the arguments may not overlap), or in some dimension
 * the subscripts are one expression plus different constants. */
static int distinct(const sj_expr *a, const sj_expr *b) {
  if (a->sym != b->sym) return 1;
  for (int k = 0; k < a->nargs && k < b->nargs; k++) {
    long ca, cb;
    const sj_expr *xa = offset(a->args[k], &ca), *xb = offset(b->args[k], &cb);
    if (ca != cb && (xa == xb || (xa && xb && sj_expr_same(xa, xb)))) return 1;
  }
  return 0;
}

/* Whether every element e reads is distinct from the element `written`. */
static int misses(const sj_expr *e, const sj_expr *written) {
  if (e->kind == SJ_E_INDEX && !distinct(e, written)) return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!misses(e->args[i], written)) return 0;
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
 * and read only by the array assignments right after it, once each: its value written in each
 * and the declaration dropped. Two writes at two places in one loop (`A[i][0] = l;
 * A[i][M - 1] = l;`) are then array assignments alone, which the model makes a statement each.
 * The value is the same bits: the declaration converted it to the local's type, and where
 * several read it (a value of little work, evaluated again), none of the elements it reads is
 * one that a reader before writes. */
static int forward_value(sj_arena *a, sj_stmt *block, int k, const sj_stmt *body) {
  const sj_stmt *d = block->body[k];
  int writes = 0, total = uses(body, d->sym, &writes), readers = 0;
  if (d->sym->rank || writes || total < 1) return 0;
  while (readers < total && k + 1 + readers < block->nbody) {
    const sj_stmt *user = block->body[k + 1 + readers];
    int none = 0;
    if (uses(user, d->sym, &none) != 1) break;
    if (readers && (user->kind != SJ_S_ASSIGN || user->lhs->kind != SJ_E_INDEX)) break;
    readers++;
  }
  if (readers != total) return 0;
  sj_stmt *first = block->body[k + 1];
  if (readers == 1
          ? first->kind != SJ_S_ASSIGN && first->kind != SJ_S_DECL
          : first->kind != SJ_S_ASSIGN || first->lhs->kind != SJ_E_INDEX || work(d->rhs) > 2)
    return 0;
  for (int r = 1; r < readers; r++)
    if (!misses(d->rhs, block->body[k + r]->lhs)) return 0;
  for (int r = 1; r <= readers; r++) {
    sj_stmt *user = block->body[k + r];
    sj_expr *value = r == readers ? d->rhs : sj_expr_copy(a, d->rhs);
    user->rhs = substitute(user->rhs, d->sym, value);
    if (user->kind == SJ_S_ASSIGN) user->lhs = substitute(user->lhs, d->sym, value);
  }
  for (int i = k; i + 1 < block->nbody; i++) block->body[i] = block->body[i + 1];
  block->nbody--;
  return 1;
}

/* Each declaration in st of a cell that body accesses only as x[0] becomes a scalar's; each
 * scalar's value read right after its declaration is written where it is read
 * (forward_value). Last first: the readers of a declaration are final when it is reached. */
static void cells(sj_arena *a, sj_stmt *st, sj_stmt *body) {
  if (!st) return;
  for (int i = 0; i < st->nbody; i++) cells(a, st->body[i], body);
  for (int k = st->kind == SJ_S_BLOCK ? st->nbody - 1 : -1; k >= 0; k--) {
    sj_stmt *d = st->body[k];
    if (d->kind == SJ_S_DECL && d->rhs && forward_value(a, st, k, body)) continue;
    if (d->kind != SJ_S_DECL || d->rhs || !is_cell(d->sym) || !only_first_in(body, d->sym))
      continue;
    to_scalar_in(body, d->sym);
    d->sym->rank = 0;
    d->sym->extents = NULL;
    forward(st, k, body);
  }
}

void sj_scalar_cells(sj_program *p) {
  for (int i = 0; i < p->nfuncs; i++) cells(p->arena, p->funcs[i]->body, p->funcs[i]->body);
}
