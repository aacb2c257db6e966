/* A scalar local declared without an initializer above a loop, as C89 code declares them at
 * the top of a function (`float delta;`), that each iteration of the loop writes before it
 * reads it, holds nothing from one iteration to the next: its declaration moves to the start
 * of the innermost loop body where that first write is. The model then sees a value private
 * to each point, where it saw a local carried from one point (and one statement) to the next,
 * which no space loop could run in parallel. */
#include "jit/parse.h"

static int mentions(const sj_expr *e, const sj_sym *x) {
  if (!e) return 0;
  if (e->sym == x) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (mentions(e->args[i], x)) return 1;
  return 0;
}

static int uses(const sj_stmt *st, const sj_sym *x) {
  if (!st) return 0;
  if (mentions(st->init, x) || mentions(st->cond, x) || mentions(st->lhs, x) ||
      mentions(st->rhs, x))
    return 1;
  for (int i = 0; i < st->nbody; i++)
    if (uses(st->body[i], x)) return 1;
  return 0;
}

/* The one statement of block[from, n) that uses x (-1: none or several). */
static int only_user(sj_stmt *const *block, int from, int n, const sj_sym *x) {
  int at = -1;
  for (int i = from; i < n; i++)
    if (uses(block[i], x)) {
      if (at >= 0) return -1;
      at = i;
    }
  return at;
}

/* The body, in loop (a for whose body alone uses x) or a loop it nests alone, that must hold
 * the declaration of x: its first statement using x writes x from other values. NULL: none. */
static sj_stmt *private_body(sj_stmt *loop, const sj_sym *x) {
  sj_stmt *body = loop->body[0];
  if (body->kind == SJ_S_FOR) return private_body(body, x);
  if (body->kind != SJ_S_BLOCK) return NULL;
  int inner = only_user(body->body, 0, body->nbody, x);
  if (inner >= 0 && body->body[inner]->kind == SJ_S_FOR) return private_body(body->body[inner], x);
  for (int i = 0; i < body->nbody; i++) {
    const sj_stmt *st = body->body[i];
    if (!uses(st, x)) continue;
    return st->kind == SJ_S_ASSIGN && st->lhs->kind == SJ_E_VAR && st->lhs->sym == x &&
                   !mentions(st->rhs, x)
               ? body
               : NULL;
  }
  return NULL;
}

static void sink(sj_arena *a, sj_stmt *st) {
  if (!st) return;
  for (int i = 0; i < st->nbody; i++) sink(a, st->body[i]);
  if (st->kind != SJ_S_BLOCK) return;
  for (int k = 0; k < st->nbody; k++) {
    sj_stmt *decl = st->body[k];
    if (decl->kind != SJ_S_DECL || decl->rhs || decl->sym->rank) continue;
    int user = only_user(st->body, k + 1, st->nbody, decl->sym);
    sj_stmt *into = user >= 0 && st->body[user]->kind == SJ_S_FOR
                        ? private_body(st->body[user], decl->sym)
                        : NULL;
    if (!into) continue;
    sj_stmt **body = sj_arena_alloc(a, (size_t)(into->nbody + 1) * sizeof *body);
    body[0] = decl;
    for (int i = 0; i < into->nbody; i++) body[i + 1] = into->body[i];
    into->body = body;
    into->nbody++;
    for (int i = k; i + 1 < st->nbody; i++) st->body[i] = st->body[i + 1];
    st->nbody--;
    k--;
  }
}

void sj_sink_locals(sj_arena *a, sj_stmt *body) {
  sink(a, body);
}
