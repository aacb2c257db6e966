/* Window loops unrolled in the typed AST: a loop with constant bounds nested in another loop,
 * whose body only updates locals (`for (di = -1; di <= 1; di++) s += A[i + di][j];`), becomes
 * its iterations in order, the iterator replaced by its value. A window's accumulator then
 * lives in one statement instance: a register, not an array promoted to memory across the
 * whole iteration space (sched/locals.c), and the nest around it keeps the stencil form that
 * time tiling needs. The order of every operation is the C loop's, so results are the same
 * bit for bit. Ifs on the iterators alone (`if (di || dj)`) are decided per iteration. */
#include "jit/parse.h"

#include <string.h>

/* Iterations unrolled per window (all its nested loops together): a 7x7 window at most, so
 * that a statement stays a few hundred operations. */
#define MAX_WINDOW 49
#define MAX_NEST 8

/* The values of the window iterators being unrolled. */
typedef struct binding {
  const sj_sym *iter[MAX_NEST];
  long value[MAX_NEST];
  int n;
} binding;

static int bound_value(const binding *b, const sj_sym *sym, long *v) {
  for (int k = 0; k < b->n; k++)
    if (b->iter[k] == sym) return *v = b->value[k], 1;
  return 0;
}

/* The value of an int expression of literals and bound iterators; 0 where it has another
 * leaf, an operator not folded here, or a division by zero. */
static int fold(const sj_expr *e, const binding *b, long *v) {
  long x, y;
  switch (e->kind) {
  case SJ_E_INT:
    return *v = e->ival, 1;
  case SJ_E_VAR:
    return bound_value(b, e->sym, v);
  case SJ_E_CAST:
    return e->type == SJ_TY_INT && e->args[0]->type == SJ_TY_INT && fold(e->args[0], b, v);
  case SJ_E_UNARY:
    if (!fold(e->args[0], b, &x)) return 0;
    return *v = e->op == '-' ? -x : e->op == '~' ? ~x : !x, 1;
  case SJ_E_BINARY:
    if (e->type != SJ_TY_INT || !fold(e->args[0], b, &x) || !fold(e->args[1], b, &y)) return 0;
    switch (e->op) {
    case SJ_OP_ADD:
      return *v = x + y, 1;
    case SJ_OP_SUB:
      return *v = x - y, 1;
    case SJ_OP_MUL:
      return *v = x * y, 1;
    case SJ_OP_BAND:
      return *v = x & y, 1;
    case SJ_OP_BOR:
      return *v = x | y, 1;
    case SJ_OP_XOR:
      return *v = x ^ y, 1;
    case SJ_OP_SHR:
      return y >= 0 && y < 32 && (*v = x >> y, 1);
    case SJ_OP_LT:
      return *v = x < y, 1;
    case SJ_OP_LE:
      return *v = x <= y, 1;
    case SJ_OP_GT:
      return *v = x > y, 1;
    case SJ_OP_GE:
      return *v = x >= y, 1;
    case SJ_OP_EQ:
      return *v = x == y, 1;
    case SJ_OP_NE:
      return *v = x != y, 1;
    case SJ_OP_AND:
      return *v = x && y, 1;
    case SJ_OP_OR:
      return *v = x || y, 1;
    default:
      return 0;
    }
  default:
    return 0;
  }
}

/* The iterations of loop with constant bounds, at most limit of them; -1 otherwise. The
 * condition is evaluated at every candidate value, as C does, so any form of it counts. */
static long trip_count(const sj_stmt *loop, long limit) {
  binding b = {.iter = {loop->iter}, .n = 1};
  long v, holds;
  if (!fold(loop->init, &b, &b.value[0])) return -1;
  for (long n = 0;; n++) {
    if (!fold(loop->cond, &b, &holds)) return -1;
    if (!holds) return n;
    if (n == limit) return -1;
    v = b.value[0] + loop->step;
    if (v < -2147483647L - 1 || v > 2147483647L) return -1;
    b.value[0] = v;
  }
}

/* Whether e reads nothing but literals and the iterators of b. */
static int over_window(const sj_expr *e, const binding *b) {
  long v;
  if (e->kind == SJ_E_VAR) return bound_value(b, e->sym, &v);
  if (e->kind == SJ_E_INDEX || e->kind == SJ_E_CALL) return 0;
  for (int i = 0; i < e->nargs; i++)
    if (!over_window(e->args[i], b)) return 0;
  return 1;
}

static int is_local_target(const sj_expr *lhs) {
  return lhs->sym->kind == SJ_SYM_LOCAL;
}

/* Iterations of the body with every nested window (1 for straight-line code); -1 where the
 * body is not a window's: a write outside the locals, an if on anything but constants and
 * window iterators, a loop that is not a window, or more than MAX_WINDOW iterations. */
static long window_size(const sj_stmt *st, binding *b) {
  long n = 1, k;
  switch (st->kind) {
  case SJ_S_ASSIGN:
    return is_local_target(st->lhs) ? 1 : -1;
  case SJ_S_DECL: /* scalars: a local array declared in a window would be declared anew */
    return st->sym->rank ? -1 : 1;
  case SJ_S_BLOCK:
    for (int i = 0; i < st->nbody; i++) {
      if ((k = window_size(st->body[i], b)) < 0) return -1;
      n = n > k ? n : k;
    }
    return n;
  case SJ_S_IF: /* decided per iteration: its condition may read the window's iterators only */
    if (!over_window(st->cond, b)) return -1;
    for (int i = 0; i < 2; i++) {
      if (!st->body[i]) continue;
      if ((k = window_size(st->body[i], b)) < 0) return -1;
      n = n > k ? n : k;
    }
    return n;
  case SJ_S_FOR:
    /* int iterators only: the folding here is signed long arithmetic, not unsigned's */
    if (st->iter->type != SJ_TY_INT || b->n == MAX_NEST || (k = trip_count(st, MAX_WINDOW)) <= 0)
      return -1;
    b->iter[b->n++] = st->iter;
    n = window_size(st->body[0], b);
    b->n--;
    return n < 0 || n * k > MAX_WINDOW ? -1 : n * k;
  }
  return -1;
}

typedef struct unroller {
  sj_arena *a;
  binding b;
  sj_stmt **out;
  int n, cap;
  int failed; /* an if whose condition did not fold: the window is left as a loop */
} unroller;

static sj_expr *substitute(unroller *u, const sj_expr *e) {
  long v;
  if (e->kind == SJ_E_VAR && bound_value(&u->b, e->sym, &v)) {
    sj_expr *lit = sj_arena_alloc(u->a, sizeof *lit);
    *lit = (sj_expr){.kind = SJ_E_INT, .type = e->type, .loc = e->loc, .ival = v};
    return lit;
  }
  /* a choice the window's iterators decide (a table's element, parse.c): the chosen side */
  if (e->kind == SJ_E_COND && fold(e->args[0], &u->b, &v)) return substitute(u, e->args[v ? 1 : 2]);
  sj_expr *c = sj_arena_alloc(u->a, sizeof *c);
  *c = *e;
  if (e->nargs) {
    c->args = sj_arena_alloc(u->a, (size_t)e->nargs * sizeof *c->args);
    for (int i = 0; i < e->nargs; i++) c->args[i] = substitute(u, e->args[i]);
  }
  return c;
}

static void emit(unroller *u, sj_stmt *st) {
  if (u->n == u->cap) {
    int cap = u->cap ? 2 * u->cap : 16;
    sj_stmt **grown = sj_arena_alloc(u->a, (size_t)cap * sizeof *grown);
    if (u->n) memcpy(grown, u->out, (size_t)u->n * sizeof *grown);
    u->out = grown, u->cap = cap;
  }
  u->out[u->n++] = st;
}

/* Appends the statements of one iteration of st under the current binding. */
static void unroll_into(unroller *u, const sj_stmt *st) {
  long v;
  switch (st->kind) {
  case SJ_S_ASSIGN:
  case SJ_S_DECL: {
    sj_stmt *c = sj_arena_alloc(u->a, sizeof *c);
    *c = *st;
    if (st->lhs) c->lhs = substitute(u, st->lhs);
    if (st->rhs) c->rhs = substitute(u, st->rhs);
    emit(u, c);
    return;
  }
  case SJ_S_BLOCK:
    for (int i = 0; i < st->nbody; i++) unroll_into(u, st->body[i]);
    return;
  case SJ_S_IF:
    if (!fold(st->cond, &u->b, &v)) {
      u->failed = 1;
      return;
    }
    if (st->body[v ? 0 : 1]) unroll_into(u, st->body[v ? 0 : 1]);
    return;
  case SJ_S_FOR: {
    int k = u->b.n++;
    u->b.iter[k] = st->iter;
    fold(st->init, &u->b, &u->b.value[k]);
    for (long held; fold(st->cond, &u->b, &held) && held; u->b.value[k] += st->step)
      unroll_into(u, st->body[0]);
    u->b.n--;
    return;
  }
  }
}

static void rewrite(sj_arena *a, sj_stmt *st, int depth);

/* The children of a block or of a loop's body, windows replaced by their iterations in place
 * (spliced into the enclosing list, so that they join the statements around them). */
static void rewrite_list(sj_arena *a, sj_stmt ***body, int *nbody, int depth) {
  unroller u = {.a = a};
  int changed = 0;
  for (int i = 0; i < *nbody; i++) {
    sj_stmt *st = (*body)[i];
    binding none = {0};
    if (depth > 0 && st->kind == SJ_S_FOR && window_size(st, &none) > 0) {
      int mark = u.n;
      u.failed = 0;
      unroll_into(&u, st);
      if (!u.failed) {
        changed = 1;
        continue;
      }
      u.n = mark;
    }
    rewrite(a, st, depth);
    emit(&u, st);
  }
  if (changed) *body = u.out, *nbody = u.n;
}

static void rewrite(sj_arena *a, sj_stmt *st, int depth) {
  switch (st->kind) {
  case SJ_S_BLOCK:
    rewrite_list(a, &st->body, &st->nbody, depth);
    return;
  case SJ_S_FOR:
    if (st->body[0]->kind == SJ_S_BLOCK) {
      rewrite(a, st->body[0], depth + 1);
    } else { /* a lone window under a loop: give the loop a block of its iterations */
      sj_stmt *block = sj_arena_alloc(a, sizeof *block);
      *block = (sj_stmt){.kind = SJ_S_BLOCK, .loc = st->body[0]->loc, .nbody = 1, .body = st->body};
      rewrite_list(a, &block->body, &block->nbody, depth + 1);
      if (block->body != st->body) {
        st->body = sj_arena_alloc(a, sizeof *st->body);
        st->body[0] = block;
      }
    }
    return;
  case SJ_S_IF:
    for (int i = 0; i < 2; i++)
      if (st->body[i]) rewrite(a, st->body[i], depth);
    return;
  default:
    return;
  }
}

void sj_unroll_windows(sj_program *p) {
  for (int i = 0; i < p->nfuncs; i++) rewrite(p->arena, p->funcs[i]->body, 0);
}
