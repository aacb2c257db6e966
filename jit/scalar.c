/* A local array of one element whose every access is element 0 (`double r[1];`, as the call
 * of a function computing its value with loops passes for its result) is a scalar local: the
 * model keeps a scalar private to a point in a register, where an array element lives in
 * memory. Where the one assignment of such a local comes right before the one statement that
 * reads it, once, its value is written there instead (the call `f(a, i)` of a function whose
 * body is `return a[i - 1] + a[i + 1];` then costs what the expression does): nothing runs
 * between the two, so it evaluates to the same bits. */
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

/* The scalar declared with its value at block->body[k] (`float l = A[i][1];`), never assigned
 * and read once, by the statement right after it: its value written there and the declaration
 * dropped. Two writes at two places in one loop (`A[i][0] = l; A[i][M - 1] = ..;`) are then
 * array assignments alone, which the model makes a statement each. The declaration converted
 * the value to the local's type, so the reader computes with the same bits. */
static int forward_value(sj_stmt *block, int k, const sj_stmt *body) {
  const sj_stmt *d = block->body[k];
  int writes = 0;
  if (d->sym->rank || k + 1 >= block->nbody || uses(body, d->sym, &writes) != 1 || writes) return 0;
  sj_stmt *user = block->body[k + 1];
  if (user->kind != SJ_S_ASSIGN && (user->kind != SJ_S_DECL || !user->rhs)) return 0;
  int none = 0;
  if (uses(user, d->sym, &none) != 1) return 0;
  user->rhs = substitute(user->rhs, d->sym, d->rhs);
  if (user->kind == SJ_S_ASSIGN) user->lhs = substitute(user->lhs, d->sym, d->rhs);
  for (int i = k; i + 1 < block->nbody; i++) block->body[i] = block->body[i + 1];
  block->nbody--;
  return 1;
}

/* Each declaration in st of a cell that body accesses only as x[0] becomes a scalar's; each
 * scalar's value read once right after its declaration is written where it is read. */
static void cells(sj_stmt *st, sj_stmt *body) {
  if (!st) return;
  for (int i = 0; i < st->nbody; i++) cells(st->body[i], body);
  for (int k = 0; st->kind == SJ_S_BLOCK && k < st->nbody; k++) {
    sj_stmt *d = st->body[k];
    if (d->kind == SJ_S_DECL && d->rhs && forward_value(st, k, body)) {
      k--; /* the reader, now at k, may be such a declaration too */
      continue;
    }
    if (d->kind != SJ_S_DECL || d->rhs || !is_cell(d->sym) || !only_first_in(body, d->sym))
      continue;
    to_scalar_in(body, d->sym);
    d->sym->rank = 0;
    d->sym->extents = NULL;
    forward(st, k, body);
  }
}

void sj_scalar_cells(sj_program *p) {
  for (int i = 0; i < p->nfuncs; i++) cells(p->funcs[i]->body, p->funcs[i]->body);
}
