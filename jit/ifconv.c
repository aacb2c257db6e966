/* Ifs whose condition reads data (an array element, a local, a floating-point value) cannot
 * restrict a statement's domain, which must be affine: such an if is turned into assignments
 * that always run and choose their value (the loops in its branches always run too). Its
 * condition is computed once, into an int local declared in its place, and each assignment
 * `L = R` under it becomes `L = k ? R : L` (`L = !k ? R : L` in the else branch), which gives
 * every element and local the value the C function leaves in it; R is evaluated only where k
 * holds, as C evaluates it (the lowering branches around reads and divisions). Nested ones
 * combine their guards (`k2 = k && d`). The guard of a then branch repeats the conjuncts that
 * are affine in the iterators (`a && k`), from which the model sees where its values are
 * evaluated, so that a subscript valid only under them is bounds-checked only there
 * (`if (j > 0 && A[j - 1] > 0)`). The new statements join the assignments around
 * them, so that they stay one statement of the model. A local assigned under a guard and
 * declared without an initializer starts at zero: the value C leaves in it is read nowhere,
 * and the choice must not read an indeterminate one. */
#include "jit/parse.h"

#include <stdlib.h>

typedef struct conv {
  sj_arena *a;
  sj_func *fn;
  int nlocals;   /* the function's own, before the guards */
  char *guarded; /* by local id below nlocals: assigned under a guard */
  int nmade, cap;
  sj_stmt **made; /* the blocks this pass made: spliced into the lists around them */
} conv;

static sj_stmt *made(conv *c, sj_stmt *block) {
  if (c->nmade == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->made = realloc(c->made, (size_t)c->cap * sizeof *c->made);
    if (!c->made) abort(); /* as the arena does */
  }
  return c->made[c->nmade++] = block;
}

static int was_made(const conv *c, const sj_stmt *st) {
  for (int i = 0; i < c->nmade; i++)
    if (c->made[i] == st) return 1;
  return 0;
}

/* The statements of body with the blocks this pass made spliced in, in place: consecutive
 * assignments stay one statement of the model. */
static void splice(conv *c, sj_stmt *block) {
  int n = 0, any = 0;
  for (int i = 0; i < block->nbody; i++) {
    int inline_it = was_made(c, block->body[i]);
    n += inline_it ? block->body[i]->nbody : 1;
    any |= inline_it;
  }
  if (!any) return;
  sj_stmt **body = sj_arena_alloc(c->a, (size_t)n * sizeof *body);
  n = 0;
  for (int i = 0; i < block->nbody; i++) {
    sj_stmt *st = block->body[i];
    if (!was_made(c, st))
      body[n++] = st;
    else
      for (int k = 0; k < st->nbody; k++) body[n++] = st->body[k];
  }
  block->body = body;
  block->nbody = n;
}

static sj_expr *expr_new(conv *c, sj_expr_kind k, sj_type t, sj_loc loc, int nargs) {
  sj_expr *e = sj_arena_alloc(c->a, sizeof *e);
  *e = (sj_expr){.kind = k, .type = t, .loc = loc, .nargs = nargs};
  if (nargs) e->args = sj_arena_alloc(c->a, (size_t)nargs * sizeof *e->args);
  return e;
}

static sj_expr *copy(conv *c, const sj_expr *e) {
  return sj_expr_copy(c->a, e);
}

static sj_expr *binary(conv *c, int op, sj_expr *l, sj_expr *r) {
  sj_expr *e = expr_new(c, SJ_E_BINARY, SJ_TY_INT, l->loc, 2);
  e->op = op;
  e->args[0] = l, e->args[1] = r;
  return e;
}

static sj_expr *negation(conv *c, sj_expr *x) {
  sj_expr *e = expr_new(c, SJ_E_UNARY, SJ_TY_INT, x->loc, 1);
  e->op = '!';
  e->args[0] = x;
  return e;
}

static sj_expr *var(conv *c, sj_sym *s, sj_loc loc) {
  sj_expr *e = expr_new(c, SJ_E_VAR, s->type, loc, 0);
  e->sym = s;
  return e;
}

/* 0 of type t (storage types as a conversion of the int 0). */
static sj_expr *zero(conv *c, sj_type t, sj_loc loc) {
  int is_float = sj_type_is_float(t), wide = t == sj_type_promote(t);
  sj_expr *z = expr_new(c, is_float ? SJ_E_FLOAT : SJ_E_INT, wide ? t : SJ_TY_INT, loc, 0);
  if (wide) return z;
  sj_expr *e = expr_new(c, SJ_E_CAST, t, loc, 1);
  e->implicit = 1;
  e->args[0] = z;
  return e;
}

/* Whether e reads data: an array element, a local or floating-point value, a call. */
static int reads_data(const sj_expr *e) {
  if (e->kind == SJ_E_INDEX || e->kind == SJ_E_CALL || sj_type_is_float(e->type)) return 1;
  if (e->kind == SJ_E_VAR && e->sym->kind != SJ_SYM_ITER && e->sym->kind != SJ_SYM_SHAPE) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_data(e->args[i])) return 1;
  return 0;
}

static sj_stmt *stmt_new(conv *c, sj_stmt_kind k, sj_loc loc, int nbody) {
  sj_stmt *s = sj_arena_alloc(c->a, sizeof *s);
  s->kind = k;
  s->loc = loc;
  s->nbody = nbody;
  if (nbody) s->body = sj_arena_alloc(c->a, (size_t)nbody * sizeof *s->body);
  return s;
}

/* A fresh int local of the function, and its declaration with initializer init. */
static sj_stmt *declare(conv *c, sj_expr *init, sj_sym **out) {
  sj_sym *s = sj_arena_alloc(c->a, sizeof *s);
  s->kind = SJ_SYM_LOCAL;
  s->name = "__sj_guard";
  s->type = SJ_TY_INT;
  s->loc = init->loc;
  s->param = -1;
  s->id = c->fn->nlocals++;
  sj_stmt *d = stmt_new(c, SJ_S_DECL, init->loc, 0);
  d->sym = s;
  d->rhs = init;
  *out = s;
  return d;
}

static void guard(conv *c, sj_stmt *st, const sj_expr *g);

/* A block the lists around it splice in, of parts (NULLs left out, blocks spliced too). */
static sj_stmt *spliced(conv *c, sj_loc loc, sj_stmt *const *parts, int n) {
  sj_stmt *b = stmt_new(c, SJ_S_BLOCK, loc, 0);
  b->body = sj_arena_alloc(c->a, (size_t)n * sizeof *b->body);
  for (int i = 0; i < n; i++)
    if (parts[i]) b->body[b->nbody++] = parts[i]->kind == SJ_S_BLOCK ? made(c, parts[i]) : parts[i];
  splice(c, b);
  return made(c, b);
}

/* The conjunction of the affine conjuncts of e (a && b && ...), NULL when there is none:
 * copies, for a guard that tells the model where a value is evaluated at most. */
static sj_expr *affine_part(conv *c, const sj_expr *e) {
  if (e->kind == SJ_E_BINARY && e->op == SJ_OP_AND) {
    sj_expr *l = affine_part(c, e->args[0]), *r = affine_part(c, e->args[1]);
    return l && r ? binary(c, SJ_OP_AND, l, r) : l ? l : r;
  }
  return reads_data(e) ? NULL : copy(c, e);
}

/* st, an if whose condition d reads data, under guard g (NULL: none), becomes
 *     int k = g && d;  then under a && k;  other under g && !k
 * where a is the affine conjuncts of g and d: the model bounds the values then evaluates by
 * them (sched/model.c), as C evaluates them only there. */
static void lower_if(conv *c, sj_stmt *st, const sj_expr *g) {
  sj_sym *k;
  sj_stmt *decl = declare(c, g ? binary(c, SJ_OP_AND, copy(c, g), st->cond) : st->cond, &k);
  sj_expr *a = affine_part(c, decl->rhs), *then_guard = var(c, k, st->loc);
  if (a) then_guard = binary(c, SJ_OP_AND, a, then_guard);
  sj_expr *not_k = negation(c, var(c, k, st->loc));
  guard(c, st->body[0], then_guard);
  guard(c, st->body[1], g ? binary(c, SJ_OP_AND, copy(c, g), not_k) : not_k);
  sj_stmt *parts[] = {decl, st->body[0], st->body[1]};
  *st = *spliced(c, st->loc, parts, 3);
  made(c, st);
}

/* st under guard g: every assignment chooses between its value and the one its target has. */
static void guard(conv *c, sj_stmt *st, const sj_expr *g) {
  if (!st) return;
  switch (st->kind) {
  case SJ_S_ASSIGN: {
    sj_expr *choice = expr_new(c, SJ_E_COND, st->lhs->type, st->rhs->loc, 3);
    choice->args[0] = copy(c, g);
    choice->args[1] = st->rhs;
    choice->args[2] = copy(c, st->lhs);
    st->rhs = choice;
    if (st->lhs->kind == SJ_E_VAR) c->guarded[st->lhs->sym->id] = 1;
    return;
  }
  case SJ_S_DECL:
    if (st->rhs) {
      sj_expr *choice = expr_new(c, SJ_E_COND, st->sym->type, st->rhs->loc, 3);
      choice->args[0] = copy(c, g);
      choice->args[1] = st->rhs;
      choice->args[2] = zero(c, st->sym->type, st->rhs->loc);
      st->rhs = choice;
    }
    return;
  case SJ_S_IF:
    if (reads_data(st->cond)) {
      lower_if(c, st, g);
      return;
    }
    for (int i = 0; i < 2; i++) guard(c, st->body[i], g);
    return;
  default:
    for (int i = 0; i < st->nbody; i++) guard(c, st->body[i], g);
    if (st->kind == SJ_S_BLOCK) splice(c, st);
    return;
  }
}

/* --- affine ifs whose branches choose values: `if (r == 0) d = a; else if (c == 0) d = b;
 * else d = e;` becomes `d = r == 0 ? a : c == 0 ? b : e;`, one assignment of the model where
 * the branches were statements of their own, whose dependences through d then stayed inside
 * one point of the nest (no stencil form); each side is bounded exactly by its condition
 * (sched/model.c). Array elements are chosen too where the if reads or writes a local (an
 * element only one branch writes then keeps its value on the other side, read and written
 * again: an affine if that touches no local stays as it is, its statements apart). --- */

typedef struct places {
  const sj_expr *v[16]; /* the left sides: scalar locals and array elements */
  int n;
  int locals; /* whether the if reads or writes a scalar local */
} places;

static int is_scalar_local(const sj_expr *e) {
  return e->kind == SJ_E_VAR && e->sym->kind == SJ_SYM_LOCAL;
}

/* Whether e reads a place of set (any element of an array of set: subscripts aside). */
static int reads_place(const sj_expr *e, const places *set) {
  if (e->kind == SJ_E_VAR || e->kind == SJ_E_INDEX)
    for (int i = 0; i < set->n; i++)
      if (set->v[i]->sym == e->sym) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_place(e->args[i], set)) return 1;
  return 0;
}

static int reads_scalar_local(const sj_expr *e) {
  if (is_scalar_local(e)) return 1;
  for (int i = 0; i < e->nargs; i++)
    if (reads_scalar_local(e->args[i])) return 1;
  return 0;
}

/* Gathers into set the places st assigns; 0 where st holds anything but assignments, blocks
 * and ifs on affine conditions. */
static int assigns_places(const sj_stmt *st, places *set) {
  if (!st) return 1;
  switch (st->kind) {
  case SJ_S_ASSIGN: {
    if (is_scalar_local(st->lhs))
      set->locals = 1;
    else if (st->lhs->kind != SJ_E_INDEX || st->lhs->sym->kind == SJ_SYM_LOCAL)
      return 0;
    set->locals |= reads_scalar_local(st->rhs);
    for (int i = 0; i < set->n; i++)
      if (sj_expr_same(set->v[i], st->lhs)) return 1;
    if (set->n == 16) return 0;
    set->v[set->n++] = st->lhs;
    return 1;
  }
  case SJ_S_IF:
    if (reads_data(st->cond)) return 0;
    /* fall through */
  case SJ_S_BLOCK:
    for (int i = 0; i < st->nbody; i++)
      if (!assigns_places(st->body[i], set)) return 0;
    return 1;
  default:
    return 0;
  }
}

static int any_reads(const sj_stmt *st, const places *set) {
  if (!st) return 0;
  if ((st->rhs && reads_place(st->rhs, set)) || (st->cond && reads_place(st->cond, set))) return 1;
  if (st->lhs && st->lhs->kind == SJ_E_INDEX)
    for (int i = 0; i < st->lhs->nargs; i++)
      if (reads_place(st->lhs->args[i], set)) return 1;
  for (int i = 0; i < st->nbody; i++)
    if (any_reads(st->body[i], set)) return 1;
  return 0;
}

/* The value place x has after st (which assigns_places() took): NULL where st leaves it. */
static sj_expr *value_after(conv *c, const sj_stmt *st, const sj_expr *x) {
  if (!st) return NULL;
  switch (st->kind) {
  case SJ_S_ASSIGN:
    return sj_expr_same(st->lhs, x) ? copy(c, st->rhs) : NULL;
  case SJ_S_IF: {
    sj_expr *then = value_after(c, st->body[0], x), *other = value_after(c, st->body[1], x);
    if (!then && !other) return NULL;
    sj_expr *choice = expr_new(c, SJ_E_COND, x->type, st->loc, 3);
    choice->args[0] = copy(c, st->cond);
    choice->args[1] = then ? then : copy(c, x);
    choice->args[2] = other ? other : copy(c, x);
    return choice;
  }
  default:
    for (int i = st->nbody - 1; i >= 0; i--) {
      sj_expr *v = value_after(c, st->body[i], x);
      if (v) return v;
    }
    return NULL;
  }
}

/* st (which assigns_places() took) with each assignment under g and the conditions of the
 * ifs around it, in their order: an element may be read after it is written. */
static void guard_each(conv *c, sj_stmt *st, const sj_expr *g) {
  if (!st) return;
  if (st->kind == SJ_S_ASSIGN) {
    guard(c, st, g);
    return;
  }
  if (st->kind == SJ_S_IF) {
    sj_expr *when = g ? binary(c, SJ_OP_AND, copy(c, g), copy(c, st->cond)) : copy(c, st->cond);
    sj_expr *unless = negation(c, copy(c, st->cond));
    if (g) unless = binary(c, SJ_OP_AND, copy(c, g), unless);
    guard_each(c, st->body[0], when);
    guard_each(c, st->body[1], unless);
    sj_stmt *parts[] = {st->body[0], st->body[1]};
    *st = *spliced(c, st->loc, parts, 2);
    made(c, st);
    return;
  }
  for (int i = 0; i < st->nbody; i++) guard_each(c, st->body[i], g);
  splice(c, st);
}

/* st, an if on an affine condition, as assignments that choose: one per place where none of
 * its expressions reads what it assigns (so the order of the assignments does not matter),
 * else each of its assignments under its conditions; 0 where it is not such an if. */
static int choose_places(conv *c, sj_stmt *st) {
  places set = {{0}, 0, 0};
  /* a scalar local among the places sets locals: without one, the places are elements */
  if (st->kind != SJ_S_IF || reads_data(st->cond) || !assigns_places(st, &set) || !set.n ||
      !set.locals)
    return 0;
  if (any_reads(st, &set)) {
    guard_each(c, st, NULL);
    return 1;
  }
  sj_stmt *parts[16];
  for (int i = 0; i < set.n; i++) {
    const sj_expr *x = set.v[i];
    parts[i] = stmt_new(c, SJ_S_ASSIGN, st->loc, 0);
    parts[i]->lhs = copy(c, x);
    parts[i]->rhs = value_after(c, st, x);
    places self = {{x}, 1, 0};
    if (is_scalar_local(x) && reads_place(parts[i]->rhs, &self) && x->sym->id < c->nlocals)
      c->guarded[x->sym->id] = 1; /* kept where no branch assigns it: it needs a value */
  }
  *st = *spliced(c, st->loc, parts, set.n);
  made(c, st);
  return 1;
}

static void convert(conv *c, sj_stmt *st) {
  if (!st) return;
  if (choose_places(c, st)) return;
  if (st->kind == SJ_S_IF && reads_data(st->cond)) {
    lower_if(c, st, NULL);
    return;
  }
  for (int i = 0; i < st->nbody; i++) convert(c, st->body[i]);
  if (st->kind == SJ_S_BLOCK) splice(c, st);
}

/* Locals assigned under a guard and declared without an initializer start at zero. */
static void initialize(conv *c, sj_stmt *st) {
  if (!st) return;
  if (st->kind == SJ_S_DECL && !st->rhs && st->sym->rank == 0 && st->sym->id < c->nlocals &&
      c->guarded[st->sym->id])
    st->rhs = zero(c, st->sym->type, st->loc);
  for (int i = 0; i < st->nbody; i++) initialize(c, st->body[i]);
}

void sj_if_convert(sj_program *p) {
  for (int i = 0; i < p->nfuncs; i++) {
    sj_func *fn = p->funcs[i];
    conv c = {.a = p->arena, .fn = fn, .nlocals = fn->nlocals};
    c.guarded = calloc((size_t)fn->nlocals + 1, 1);
    if (!c.guarded) abort(); /* as the arena does */
    convert(&c, fn->body);
    /* before the zeros: a declaration that moves needs none where its loop writes it first */
    sj_sink_locals(p->arena, fn->body);
    initialize(&c, fn->body);
    free(c.guarded);
    free(c.made);
  }
}
