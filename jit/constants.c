/* Locals that only name a value (`const int lo = R + 1;`, `float c = 0.25f;`: declared with
 * an initializer over literals, shape and scalar parameters, iterators and other such
 * locals, and never assigned afterwards) are replaced by their initializers wherever they
 * are read, and their declarations dropped. A loop bound or a subscript written with them is
 * then affine, as the same text spelled out is, and a coefficient declared before the time
 * loop no longer makes a statement outside it. The value is the same: nothing the
 * initializer reads changes within the local's scope, and exact mode evaluates the same
 * expression to the same bits wherever it stands. Calls stay locals: one evaluation, not
 * one per use. */
#include "jit/parse.h"

#include <stdlib.h>
#include <string.h>

typedef struct folder {
  sj_arena *a;
  const sj_expr **value; /* by local id: the initializer, or NULL */
  char *assigned;        /* by local id: some statement assigns it after its declaration */
} folder;

static int foldable(const folder *f, const sj_expr *e) {
  switch (e->kind) {
  case SJ_E_VAR:
    return e->sym->kind != SJ_SYM_LOCAL || f->value[e->sym->id];
  case SJ_E_INDEX:
  case SJ_E_CALL:
    return 0;
  default:
    for (int i = 0; i < e->nargs; i++)
      if (!foldable(f, e->args[i])) return 0;
    return 1;
  }
}

/* e with the folded locals replaced by copies of their values (the AST stays a tree). */
static sj_expr *replace(folder *f, sj_expr *e) {
  if (e->kind == SJ_E_VAR && e->sym->kind == SJ_SYM_LOCAL && f->value[e->sym->id])
    return sj_expr_copy(f->a, f->value[e->sym->id]);
  for (int i = 0; i < e->nargs; i++) e->args[i] = replace(f, e->args[i]);
  return e;
}

static void fold_stmt(folder *f, sj_stmt *st);

static void fold_list(folder *f, sj_stmt **body, int *nbody) {
  int kept = 0;
  for (int i = 0; i < *nbody; i++) {
    sj_stmt *st = body[i];
    fold_stmt(f, st);
    if (st->kind == SJ_S_DECL && st->sym->rank == 0 && st->rhs && !f->assigned[st->sym->id] &&
        foldable(f, st->rhs)) {
      f->value[st->sym->id] = st->rhs;
      continue;
    }
    body[kept++] = st;
  }
  *nbody = kept;
}

static void fold_stmt(folder *f, sj_stmt *st) {
  if (st->lhs) st->lhs = replace(f, st->lhs);
  if (st->rhs) st->rhs = replace(f, st->rhs);
  if (st->init) st->init = replace(f, st->init);
  if (st->cond) st->cond = replace(f, st->cond);
  if (st->kind == SJ_S_BLOCK) {
    fold_list(f, st->body, &st->nbody);
    return;
  }
  for (int i = 0; i < st->nbody; i++)
    if (st->body[i]) fold_stmt(f, st->body[i]);
}

static void find_assigned(folder *f, const sj_stmt *st) {
  if (st->kind == SJ_S_ASSIGN && st->lhs->sym->kind == SJ_SYM_LOCAL)
    f->assigned[st->lhs->sym->id] = 1;
  for (int i = 0; i < st->nbody; i++)
    if (st->body[i]) find_assigned(f, st->body[i]);
}

void sj_fold_const_locals(sj_program *p) {
  for (int i = 0; i < p->nfuncs; i++) {
    sj_func *fn = p->funcs[i];
    if (!fn->nlocals) continue;
    folder f = {.a = p->arena,
                .value = calloc((size_t)fn->nlocals, sizeof *f.value),
                .assigned = calloc((size_t)fn->nlocals, 1)};
    find_assigned(&f, fn->body);
    fold_stmt(&f, fn->body);
    free(f.value);
    free(f.assigned);
  }
}
