/* The polyhedral model of one function for one shape: statement domains, accesses, the
 * original schedule tree, and the check that no access leaves its array. */
#include "sched/sched.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/space.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "base/grow.h"
#include "sched/affine.h"
#include "sched/locals.h"
#include "stenciljit.h"

#define MAX_DEPTH 16

/* Index functions already built for the statement being collected: a stencil subscripts
 * one array with the same t % 2 many times, and isl's piecewise remainders are costly. */
typedef struct index_memo {
  char key[96];
  isl_pw_aff *pa;
} index_memo;

/* An access already added for the statement being collected: a local's value used again
 * (x * x + x with x = A[i - 1] + A[i + 1], inlined) makes the same accesses again, whose
 * relation is built once (`x = x * x + x;` ten times over x = A[i] reads A[i] 59049 times:
 * its compile took 1.2 s, now 0.12 s). */
typedef struct access_memo {
  int access;     /* in m->accesses */
  isl_set *guard; /* its guard, held so that its address stays its own */
} access_memo;

typedef struct builder {
  sj_model *m;
  sj_error *err;
  index_memo memo[32];
  int nmemo;
  access_memo seen[16];
  int nseen;
  int depth;
  sj_sym *iters[MAX_DEPTH];
  int *iter_pos;  /* by iterator id */
  sj_site *sites; /* uses of locals, in order of statements and of evaluation */
  int nsites, capsites;
  int order;       /* of the next use in the statement being collected */
  sj_pstmt **decl; /* by local id: the statement of its declaration */
  int nest_depth;  /* of the deepest nest in the outermost loop being built, itself counted */
  int top;         /* the function's body is being built: its parts are kept */
  int failed;
} builder;

/* A schedule under construction: band members not yet inserted, so that a perfect nest
 * becomes one multi-member band (tilable as a whole) instead of a chain of bands. */
typedef struct built {
  isl_schedule *sched;
  int npending;
  isl_union_pw_aff *pending[MAX_DEPTH]; /* outermost first */
} built;

static int fail(builder *b, int status, sj_loc loc, const char *fmt, const char *arg) {
  if (!b->failed) sj_error_at(b->err, status, b->m->source_name, loc, fmt, arg);
  b->failed = 1;
  return -1;
}

static void built_clear(built *x) {
  isl_schedule_free(x->sched);
  for (int i = 0; i < x->npending; i++) isl_union_pw_aff_free(x->pending[i]);
  x->sched = NULL;
  x->npending = 0;
}

/* Inserts the pending members as one band; returns the bare schedule. */
static __isl_give isl_schedule *flush(built *x) {
  isl_schedule *s = x->sched;
  x->sched = NULL;
  if (!s || !x->npending) return s;
  isl_ctx *ctx = isl_schedule_get_ctx(s);
  isl_union_pw_aff_list *list = isl_union_pw_aff_list_alloc(ctx, x->npending);
  for (int i = 0; i < x->npending; i++) list = isl_union_pw_aff_list_add(list, x->pending[i]);
  isl_space *space = isl_space_set_alloc(ctx, 0, x->npending);
  isl_multi_union_pw_aff *mupa = isl_multi_union_pw_aff_from_union_pw_aff_list(space, list);
  x->npending = 0;
  return isl_schedule_insert_partial_schedule(s, mupa);
}

static __isl_give isl_schedule *sequence(__isl_take isl_schedule *a, __isl_take isl_schedule *b) {
  if (!a) return b;
  if (!b) return a;
  return isl_schedule_sequence(a, b);
}

static __isl_give isl_space *loop_space(isl_ctx *ctx, int dims) {
  return isl_space_set_alloc(ctx, 0, dims);
}

static void affine_env(builder *b, sj_affine_env *env, const char *what) {
  memset(env, 0, sizeof *env);
  env->shape = b->m->shape;
  env->iter_pos = b->iter_pos;
  env->what = what;
  env->source_name = b->m->source_name;
  env->err = b->err;
  env->failed = b->failed;
}

/* --- accesses of one statement --- */

/* e as a function on the statement's domain, shared with its earlier subscripts. On the
 * domain, the pieces isl keeps for C's remainder of negative values mostly vanish. */
static __isl_give isl_pw_aff *index_function(builder *b, sj_affine_env *env, const sj_expr *e,
                                             __isl_keep isl_set *domain) {
  char key[96];
  int keyed = sj_expr_key(e, key, sizeof key) > 0;
  for (int i = 0; keyed && i < b->nmemo; i++)
    if (!strcmp(b->memo[i].key, key)) return isl_pw_aff_copy(b->memo[i].pa);
  isl_space *space = isl_set_get_space(domain);
  env->context = domain;
  isl_pw_aff *pa = sj_affine(env, e, space);
  env->context = NULL;
  isl_space_free(space);
  if (pa && keyed && b->nmemo < 32) {
    snprintf(b->memo[b->nmemo].key, sizeof b->memo[b->nmemo].key, "%s", key);
    b->memo[b->nmemo++].pa = isl_pw_aff_copy(pa);
  }
  return pa;
}

static void forget_indices(builder *b) {
  for (int i = 0; i < b->nmemo; i++) isl_pw_aff_free(b->memo[i].pa);
  for (int i = 0; i < b->nseen; i++) isl_set_free(b->seen[i].guard);
  b->nmemo = b->nseen = 0;
}

static int append_access(sj_model *m, sj_access a) {
  sj_access *grown = sj_grow(m->accesses, (size_t)m->naccesses, sizeof *m->accesses);
  if (!grown) {
    isl_map_free(a.rel);
    return -1;
  }
  m->accesses = grown;
  m->accesses[m->naccesses++] = a;
  return 0;
}

/* guard: the instances where the access happens (C evaluates one side of ?: and the right
 * side of && and || only when needed); NULL for all of them. */
static int add_access(builder *b, sj_pstmt *s, const sj_expr *ref, int is_write,
                      __isl_keep isl_set *guard) {
  sj_model *m = b->m;
  for (int i = 0; i < b->nseen; i++) {
    const sj_access *a = &m->accesses[b->seen[i].access];
    if (a->stmt == s && a->is_write == is_write && b->seen[i].guard == guard &&
        sj_expr_same(a->ref, ref))
      return append_access(m, (sj_access){s, ref, is_write, isl_map_copy(a->rel), 1});
  }
  sj_affine_env env;
  char what[96];
  snprintf(what, sizeof what, "the index of '%s'", ref->sym->name);
  affine_env(b, &env, what);
  isl_space *space = isl_set_get_space(s->domain);
  isl_pw_aff_list *index = isl_pw_aff_list_alloc(m->ctx, ref->nargs);
  for (int k = 0; k < ref->nargs && !env.failed; k++)
    index = isl_pw_aff_list_add(index, index_function(b, &env, ref->args[k], s->domain));
  if (env.failed) {
    isl_pw_aff_list_free(index);
    isl_space_free(space);
    b->failed = 1;
    return -1;
  }
  isl_space *map_space =
      isl_space_map_from_domain_and_range(space, isl_space_set_alloc(m->ctx, 0, ref->nargs));
  isl_map *rel = sj_index_relation(map_space, index);
  rel = isl_map_set_tuple_name(rel, isl_dim_out, ref->sym->name);
  rel = isl_map_intersect_domain(rel, isl_set_copy(guard ? guard : s->domain));
  if (b->nseen < (int)(sizeof b->seen / sizeof *b->seen))
    b->seen[b->nseen++] = (access_memo){m->naccesses, isl_set_copy(guard)};
  return append_access(m, (sj_access){s, ref, is_write, rel, 0});
}

static int collect_expr(builder *b, sj_pstmt *s, const sj_expr *e, __isl_keep isl_set *guard);

/* The affine condition c restricted to guard (or to the statement domain), or NULL when c
 * depends on data: then both sides count as possibly evaluated. */
static __isl_give isl_set *affine_guard(builder *b, sj_pstmt *s, const sj_expr *c,
                                        __isl_keep isl_set *guard) {
  sj_affine_env env;
  affine_env(b, &env, "a condition");
  env.quiet = 1;
  env.context = guard ? guard : s->domain;
  isl_space *space = isl_set_get_space(s->domain);
  isl_set *set = sj_condition(&env, c, space);
  isl_space_free(space);
  return set ? isl_set_intersect(set, isl_set_copy(guard ? guard : s->domain)) : NULL;
}

/* Where condition c holds at most: its affine conjuncts (c = a && d with d reading data holds
 * only where a does), *exact when that is where c holds. NULL when no conjunct is affine. */
static __isl_give isl_set *affine_bound(builder *b, sj_pstmt *s, const sj_expr *c,
                                        __isl_keep isl_set *guard, int *exact) {
  isl_set *set = affine_guard(b, s, c, guard);
  *exact = set != NULL;
  if (set || c->kind != SJ_E_BINARY || c->op != SJ_OP_AND) return set;
  int e0, e1;
  isl_set *left = affine_bound(b, s, c->args[0], guard, &e0);
  isl_set *right = affine_bound(b, s, c->args[1], guard, &e1);
  if (!left || !right) return left ? left : right;
  return isl_set_intersect(left, right);
}

static int collect_guarded(builder *b, sj_pstmt *s, const sj_expr *e, __isl_keep isl_set *when,
                           int negate, __isl_keep isl_set *guard) {
  if (!when) return collect_expr(b, s, e, guard);
  isl_set *g = negate
                   ? isl_set_subtract(isl_set_copy(guard ? guard : s->domain), isl_set_copy(when))
                   : isl_set_copy(when);
  int rc = collect_expr(b, s, e, g);
  isl_set_free(g);
  return rc;
}

static int add_site(builder *b, sj_pstmt *s, const sj_sym *sym, const void *node,
                    const sj_expr *ref, int is_write, __isl_keep isl_set *guard) {
  if (b->nsites == b->capsites) {
    int cap = b->capsites ? 2 * b->capsites : 16;
    sj_site *grown = realloc(b->sites, (size_t)cap * sizeof *b->sites);
    if (!grown) {
      if (!b->failed) sj_error_set(b->err, JIT_ERR_NOMEM, "out of memory");
      b->failed = 1;
      return -1;
    }
    b->sites = grown;
    b->capsites = cap;
  }
  b->sites[b->nsites++] =
      (sj_site){s, sym, node, ref, is_write, b->order++, guard ? isl_set_copy(guard) : NULL, NULL};
  return 0;
}

static int is_local(const sj_expr *e) {
  return (e->kind == SJ_E_VAR || e->kind == SJ_E_INDEX) && e->sym->kind == SJ_SYM_LOCAL;
}

static int collect_expr(builder *b, sj_pstmt *s, const sj_expr *e, __isl_keep isl_set *guard) {
  if (e->kind == SJ_E_INDEX && !is_local(e) && add_access(b, s, e, 0, guard)) return -1;
  int lazy =
      e->kind == SJ_E_COND || (e->kind == SJ_E_BINARY && (e->op == SJ_OP_AND || e->op == SJ_OP_OR));
  if (!lazy) {
    for (int i = 0; i < e->nargs; i++)
      if (collect_expr(b, s, e->args[i], guard)) return -1;
    return is_local(e) ? add_site(b, s, e->sym, e, e, 0, guard) : 0;
  }
  if (collect_expr(b, s, e->args[0], guard)) return -1;
  int exact;
  isl_set *when = affine_bound(b, s, e->args[0], guard, &exact);
  int rc;
  /* a side evaluated where the condition holds is bounded by its affine conjuncts; one
   * evaluated where it does not, only by an exact condition */
  if (e->kind == SJ_E_COND)
    rc = collect_guarded(b, s, e->args[1], when, 0, guard) ||
         collect_guarded(b, s, e->args[2], exact ? when : NULL, 1, guard);
  else /* && evaluates its right side where the left holds, || where it does not */
    rc = collect_guarded(b, s, e->args[1], e->op == SJ_OP_AND || exact ? when : NULL,
                         e->op == SJ_OP_OR, guard);
  isl_set_free(when);
  return rc ? -1 : 0;
}

static int collect_stmt(builder *b, sj_pstmt *s, const sj_stmt *st) {
  if (st->rhs && collect_expr(b, s, st->rhs, NULL)) return -1;
  if (st->kind == SJ_S_DECL) {
    b->decl[st->sym->id] = s;
    return st->rhs ? add_site(b, s, st->sym, st, NULL, 1, NULL) : 0;
  }
  const sj_expr *lhs = st->lhs;
  for (int i = 0; i < lhs->nargs; i++)
    if (collect_expr(b, s, lhs->args[i], NULL)) return -1;
  if (is_local(lhs)) return add_site(b, s, lhs->sym, lhs, lhs, 1, NULL);
  return add_access(b, s, lhs, 1, NULL);
}

static __isl_give isl_set *name_dims(__isl_take isl_set *set, builder *b, sj_pstmt *s) {
  set = isl_set_set_tuple_id(set, isl_id_alloc(b->m->ctx, s->name, s));
  for (int i = 0; i < b->depth; i++)
    set = isl_set_set_dim_name(set, isl_dim_set, i, b->iters[i]->name);
  return set;
}

static int build_group(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n, built *out) {
  sj_model *m = b->m;
  sj_pstmt *s = calloc(1, sizeof *s);
  s->tag = SJ_ID_STMT;
  s->id = m->nstmts;
  snprintf(s->name, sizeof s->name, "S%d", s->id);
  s->depth = b->depth;
  s->iters = calloc(b->depth + 1, sizeof *s->iters);
  memcpy(s->iters, b->iters, b->depth * sizeof *s->iters);
  s->body = malloc(n * sizeof *s->body); /* body may be a caller's temporary */
  memcpy(s->body, body, n * sizeof *s->body);
  s->nbody = n;
  s->domain = name_dims(isl_set_copy(context), b, s);
  m->stmts = realloc(m->stmts, (m->nstmts + 1) * sizeof *m->stmts);
  m->stmts[m->nstmts++] = s;
  b->order = 0;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) rc = collect_stmt(b, s, body[i]);
  forget_indices(b); /* the next statement has another space */
  if (rc) return -1;
  out->sched = isl_schedule_from_domain(isl_union_set_from_set(isl_set_copy(s->domain)));
  return 0;
}

static int build_stmt(builder *b, __isl_keep isl_set *context, sj_stmt *st, built *out);

/* The member of loop dimension d over the statements first.. built in inner:
 * S[..., i_d, ...] -> [i_d], negated for a decreasing loop. */
static void add_member(sj_model *m, built *inner, int first, int d, int negate) {
  isl_union_pw_aff *member = NULL;
  for (int k = first; k < m->nstmts; k++) {
    isl_space *sp = isl_set_get_space(m->stmts[k]->domain);
    isl_aff *aff = isl_aff_var_on_domain(isl_local_space_from_space(sp), isl_dim_set, d);
    if (negate) aff = isl_aff_neg(aff);
    isl_union_pw_aff *upa = isl_union_pw_aff_from_pw_aff(isl_pw_aff_from_aff(aff));
    member = member ? isl_union_pw_aff_union_add(member, upa) : upa;
  }
  if (inner->npending == MAX_DEPTH) inner->sched = flush(inner);
  memmove(inner->pending + 1, inner->pending, inner->npending * sizeof *inner->pending);
  inner->pending[0] = member;
  inner->npending++;
}

/* The number of loops in the deepest nest of st, st itself counted. */
static int nest_depth(const sj_stmt *st) {
  int deepest = 0;
  for (int i = 0; i < st->nbody; i++)
    if (st->body[i]) {
      int d = nest_depth(st->body[i]);
      deepest = d > deepest ? d : deepest;
    }
  return deepest + (st->kind == SJ_S_FOR);
}

/* Whether e reads a local that none of the declarations body[0..n) declares. */
static int reads_outer_local(const sj_expr *e, sj_stmt *const *body, int n) {
  if ((e->kind == SJ_E_VAR || e->kind == SJ_E_INDEX) && e->sym->kind == SJ_SYM_LOCAL) {
    int declared = 0;
    for (int i = 0; i < n && !declared; i++)
      declared = body[i]->kind == SJ_S_DECL && body[i]->sym == e->sym;
    if (!declared) return 1;
  }
  for (int i = 0; i < e->nargs; i++)
    if (reads_outer_local(e->args[i], body, n)) return 1;
  return 0;
}

/* Whether the statements body[0..n) move array elements through scalar locals of their own
 * (`float l = A[1]; A[0] = l;`): every local they read or write they declare, so each run of
 * them starts its locals afresh. */
static int private_locals(sj_stmt *const *body, int n) {
  for (int i = 0; i < n; i++) {
    const sj_stmt *st = body[i];
    if (st->kind == SJ_S_DECL) {
      if (st->sym->rank || !st->rhs || reads_outer_local(st->rhs, body, n)) return 0;
      continue;
    }
    if (st->kind != SJ_S_ASSIGN || st->lhs->kind != SJ_E_INDEX ||
        st->lhs->sym->kind != SJ_SYM_ARRAY || reads_outer_local(st->rhs, body, n))
      return 0;
    for (int k = 0; k < st->lhs->nargs; k++)
      if (reads_outer_local(st->lhs->args[k], body, n)) return 0;
  }
  return 1;
}

/* Whether the assignments body[0..n) only move array elements: no local is declared, read
 * or written (the locals' analysis keeps its forms of statements). */
static int arrays_only(sj_stmt *const *body, int n) {
  for (int i = 0; i < n; i++)
    if (body[i]->kind == SJ_S_DECL) return 0;
  return private_locals(body, n);
}

static int build_each(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n, built *out);

/* Assignments directly in an outermost loop that holds loops (`A[t + 1][0] = A[t][0];` in a
 * time loop) in a loop of one point, as if written `for (p = 0; p < 1; p++)`: every statement
 * of a time loop then has a space nest, which the stencil form and the time tilings need; the
 * order and the instances are the C function's. With `each`, a statement each under the one
 * point (`A[0] = A[1]; A[N - 1] = A[N - 2];`): placed apart, but one nest (one kernel, one
 * folded step). */

static int build_point(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n, int each,
                       built *out) {
  sj_model *m = b->m;
  int d = b->depth;
  if (!m->point) {
    m->point = calloc(1, sizeof *m->point);
    if (!m->point) return fail(b, JIT_ERR_NOMEM, body[0]->loc, "out of %s", "memory");
    *m->point = (sj_sym){.kind = SJ_SYM_ITER,
                         .name = "_pt",
                         .type = SJ_TY_INT,
                         .loc = body[0]->loc,
                         .param = -1,
                         .id = m->fn->niters};
  }
  b->iters[d] = m->point;
  b->depth = d + 1;
  isl_set *one =
      isl_set_fix_si(isl_set_add_dims(isl_set_copy(context), isl_dim_set, 1), isl_dim_set, d, 0);
  built inner = {0};
  int first = m->nstmts;
  int rc = each ? build_each(b, one, body, n, &inner) : build_group(b, one, body, n, &inner);
  isl_set_free(one);
  b->depth = d;
  if (rc) {
    built_clear(&inner);
    return -1;
  }
  add_member(m, &inner, first, d, 0);
  *out = inner;
  return 0;
}

/* The sequence of parts[0..n), merged as a balanced tree: isl copies both operands of a
 * sequence, so appending parts one by one would cost quadratically in their number. */
static __isl_give isl_schedule *sequence_of(isl_schedule **parts, int n) {
  if (n == 0) return NULL;
  if (n == 1) return parts[0];
  isl_schedule *left = sequence_of(parts, n / 2);
  return sequence(left, sequence_of(parts + n / 2, n - n / 2));
}

/* Whether the array assignments body[0..n) write along different last `space` subscripts
 * (`A[0][j] = ..; A[N - 1][j] = ..;`), each having that many. */
static int writes_apart(sj_stmt *const *body, int n, int space) {
  int apart = 0;
  for (int i = 0; i < n; i++) {
    const sj_expr *a = body[i]->lhs, *z = body[0]->lhs;
    if (a->nargs < space) return 0;
    for (int k = 1; k <= space; k++)
      apart |= !sj_expr_same(a->args[a->nargs - k], z->args[z->nargs - k]);
  }
  return apart;
}

static int build_assignments(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n,
                             built *out);

/* Each of body[0..n) a statement of its own, in order. */
static int build_each(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n, built *out) {
  isl_schedule **parts = calloc((size_t)n, sizeof *parts);
  int rc = parts ? 0 : -1;
  for (int i = 0; i < n && !rc; i++) {
    built part = {0};
    rc = build_assignments(b, context, body + i, 1, &part);
    if (rc)
      built_clear(&part);
    else
      parts[i] = flush(&part);
  }
  if (rc)
    for (int i = 0; i < n; i++) isl_schedule_free(parts[i]);
  else
    out->sched = sequence(out->sched, sequence_of(parts, n));
  free(parts);
  return rc;
}

/* Array assignments outside a time loop's deepest nest that write at different places (two
 * sides of a grid in one loop) are one statement each: a statement sits where it writes in
 * the time tilings (sched/place.c), which two places do not say. */
static int build_assignments(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n,
                             built *out) {
  int outside = b->depth >= 1 && b->depth < b->nest_depth;
  int each = outside && n > 1 && arrays_only(body, n) && writes_apart(body, n, b->nest_depth - 1);
  if (b->depth == 1 && outside && private_locals(body, n)) /* one point, shared */
    return build_point(b, context, body, n, each, out);
  if (each) return build_each(b, context, body, n, out);
  return build_group(b, context, body, n, out);
}

static int build_block(builder *b, __isl_keep isl_set *context, sj_stmt **body, int n, built *out) {
  built part = {0};
  int top = b->top;
  b->top = 0;
  int only = -1; /* a lone compound child keeps its pending members: perfect nesting */
  int count = 0;
  for (int i = 0; i < n; i++)
    if (body[i]->kind != SJ_S_BLOCK || body[i]->nbody) count++, only = i;
  if (count == 1 && (body[only]->kind == SJ_S_FOR || body[only]->kind == SJ_S_BLOCK))
    return build_stmt(b, context, body[only], out);
  isl_schedule **parts = calloc((size_t)n + 1, sizeof *parts);
  int *first = calloc((size_t)n + 2, sizeof *first);
  int nparts = 0, rc = parts && first ? 0 : -1;
  for (int i = 0; i < n && !rc;) {
    int j = i;
    while (j < n && (body[j]->kind == SJ_S_ASSIGN || body[j]->kind == SJ_S_DECL)) j++;
    memset(&part, 0, sizeof part);
    first[nparts] = b->m->nstmts;
    if (j > i) {
      rc = build_assignments(b, context, body + i, j - i, &part);
      i = j;
    } else {
      /* a lone if the sizes decide (a guard clause) may hold the body's parts */
      b->top = top && count == 1 && body[i]->kind == SJ_S_IF;
      rc = build_stmt(b, context, body[i++], &part);
      b->top = 0;
    }
    if (rc)
      built_clear(&part);
    else if ((parts[nparts] = flush(&part)))
      nparts++;
  }
  if (!rc && top && nparts > 1) { /* the model keeps them for sj_model_part */
    b->m->parts = calloc((size_t)nparts, sizeof *b->m->parts);
    if (!b->m->parts) rc = -1;
    for (int i = 0; !rc && i < nparts; i++) b->m->parts[i] = isl_schedule_copy(parts[i]);
    first[nparts] = b->m->nstmts;
    b->m->part_first = rc ? NULL : first;
    b->m->nparts = rc ? 0 : nparts;
    first = rc ? first : NULL;
  }
  if (rc)
    for (int i = 0; i < nparts; i++) isl_schedule_free(parts[i]);
  else
    out->sched = sequence(out->sched, sequence_of(parts, nparts));
  free(parts);
  free(first);
  return rc ? -1 : 0;
}

static int mentions_sym(const sj_expr *e, const sj_sym *sym) {
  if (e->kind == SJ_E_VAR) return e->sym == sym;
  for (int i = 0; i < e->nargs; i++)
    if (mentions_sym(e->args[i], sym)) return 1;
  return 0;
}

/* Conditions that are ranges by their form: conjunctions of `i < e`, `i <= e` (or `e > i`,
 * `e >= i`) with e free of i, for an increasing loop; the mirror for a decreasing one. */
static int obviously_monotone(const sj_expr *c, const sj_sym *iter, long step) {
  if (c->kind != SJ_E_BINARY) return 0;
  if (c->op == SJ_OP_AND)
    return obviously_monotone(c->args[0], iter, step) && obviously_monotone(c->args[1], iter, step);
  int left_is_iter =
      c->args[0]->kind == SJ_E_VAR && c->args[0]->sym == iter && !mentions_sym(c->args[1], iter);
  int right_is_iter =
      c->args[1]->kind == SJ_E_VAR && c->args[1]->sym == iter && !mentions_sym(c->args[0], iter);
  int upper = (left_is_iter && (c->op == SJ_OP_LT || c->op == SJ_OP_LE)) ||
              (right_is_iter && (c->op == SJ_OP_GT || c->op == SJ_OP_GE));
  int lower = (left_is_iter && (c->op == SJ_OP_GT || c->op == SJ_OP_GE)) ||
              (right_is_iter && (c->op == SJ_OP_LT || c->op == SJ_OP_LE));
  return step > 0 ? upper : lower;
}

/* set without its integer divisions where they exclude nothing (the modulo of an unsigned
 * i + 1 < n where i stays far below the wrap): simpler bounds for every later stage. */
static __isl_give isl_set *without_idle_divs(__isl_take isl_set *set) {
  isl_set *plain = isl_set_remove_divs(isl_set_copy(set));
  if (isl_set_plain_is_equal(plain, set) != isl_bool_true &&
      isl_set_is_subset(plain, set) == isl_bool_true) {
    isl_set_free(set);
    return plain;
  }
  isl_set_free(plain);
  return set;
}

/* Whether the condition holds on a range of the iterator: starting at init, going in the
 * direction of step, it may only turn false once. 1 yes, 0 no (or not shown), -1 after an
 * error. */
static int monotone(builder *b, const sj_stmt *loop, __isl_keep isl_set *ext,
                    __isl_keep isl_set *cond, __isl_keep isl_set *start) {
  if (obviously_monotone(loop->cond, loop->iter, loop->step)) return 1;
  int d = b->depth - 1; /* the loop's own dimension */
  isl_space *space = isl_set_get_space(ext);
  isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
  isl_multi_aff *shift = isl_multi_aff_identity(isl_space_map_from_set(space));
  isl_aff *prev = isl_aff_var_on_domain(ls, isl_dim_set, d);
  prev = isl_aff_add_constant_si(prev, -loop->step);
  shift = isl_multi_aff_set_aff(shift, d, prev);
  /* Points past the start where the condition holds ... */
  isl_set *later = isl_set_intersect(isl_set_copy(ext), isl_set_copy(cond));
  later = isl_set_subtract(later, isl_set_copy(start));
  /* ... must have the condition hold one step earlier too. */
  isl_set *held = isl_set_preimage_multi_aff(isl_set_copy(cond), shift);
  isl_bool ok = isl_set_is_subset(later, held);
  isl_set_free(later);
  isl_set_free(held);
  if (ok < 0) return fail(b, JIT_ERR_INTERNAL, loop->loc, "isl failed on the loop %s", "");
  return ok == isl_bool_true;
}

/* The points C runs through when the condition may hold again after it failed (i != 5 &&
 * i < n, or an unsigned i + 1 < n that wraps at the end of the type): those of ext, in the
 * direction of the loop, before the first one where the condition fails. */
static __isl_give isl_set *before_failure(__isl_keep isl_set *ext, __isl_keep isl_set *cond, int d,
                                          long step) {
  isl_set *fails = isl_set_subtract(isl_set_copy(ext), isl_set_copy(cond));
  /* outer iterators -> the failures */
  isl_map *at = isl_map_move_dims(isl_map_from_range(fails), isl_dim_in, 0, isl_dim_out, 0, d);
  isl_space *one = isl_space_range(isl_map_get_space(at));
  at = isl_map_apply_range(at, step > 0 ? isl_map_lex_le(one) : isl_map_lex_ge(one));
  isl_set *blocked = isl_set_flatten(isl_map_wrap(at)); /* at or past a failure */
  isl_set *dom = isl_set_intersect(isl_set_copy(ext), isl_set_copy(cond));
  return isl_set_subtract(dom, blocked);
}

/* The values of an iterator's type: [*lo, *hi]. */
static void type_range(isl_ctx *ctx, sj_type t, __isl_give isl_val **lo, __isl_give isl_val **hi) {
  int bits = 8 * sj_type_size(t);
  if (sj_type_is_unsigned(t)) {
    *lo = isl_val_zero(ctx);
    *hi = isl_val_sub_ui(isl_val_2exp(isl_val_int_from_si(ctx, bits)), 1);
  } else {
    *hi = isl_val_sub_ui(isl_val_2exp(isl_val_int_from_si(ctx, bits - 1)), 1);
    *lo = isl_val_neg(isl_val_add_ui(isl_val_copy(*hi), 1));
  }
}

/* The points of set whose dimension d lies within the iterator's type. */
static __isl_give isl_set *within_type(__isl_take isl_set *set, int d, sj_type t) {
  isl_val *lo, *hi;
  type_range(isl_set_get_ctx(set), t, &lo, &hi);
  set = isl_set_lower_bound_val(set, isl_dim_set, d, lo);
  return isl_set_upper_bound_val(set, isl_dim_set, d, hi);
}

/* The iteration set of the loop as C runs it, from the points where it starts on (ext) and
 * its condition: a signed iterator may not leave its type (C's overflow is undefined); an
 * unsigned one wraps around, and C stops there only if the condition fails on the wrapped
 * value (the count down `for (unsigned i = n - 1; i < n; i--)`). NULL after an error. */
static __isl_give isl_set *loop_domain(builder *b, const sj_stmt *loop, __isl_take isl_set *dom,
                                       __isl_keep isl_set *cond, int d) {
  sj_type t = loop->iter->type;
  isl_set *inside = within_type(isl_set_copy(dom), d, t);
  isl_bool same = isl_set_is_subset(dom, inside);
  /* as mostly: dom without the type's redundant bounds; an unsigned loop may still step past
   * its type's end, where its condition (i >= 0) may hold again */
  if (same == isl_bool_true && !sj_type_is_unsigned(t)) {
    isl_set_free(inside);
    return dom;
  }
  if (!sj_type_is_unsigned(t)) {
    isl_set_free(dom);
    isl_set_free(inside);
    char msg[160];
    snprintf(msg, sizeof msg,
             "the loop over '%s' leaves the range of %s for these arguments (C's overflow is "
             "undefined)",
             loop->iter->name, sj_type_name(t));
    fail(b, JIT_ERR_ARGS, loop->loc, "%s", msg);
    return NULL;
  }
  /* the values one step past the last one inside, wrapped around */
  isl_ctx *ctx = isl_set_get_ctx(inside);
  isl_val *span = isl_val_2exp(isl_val_int_from_si(ctx, 8 * sj_type_size(t)));
  isl_space *space = isl_set_get_space(inside);
  isl_multi_aff *back = isl_multi_aff_identity(isl_space_map_from_set(space));
  isl_aff *prev = isl_multi_aff_get_aff(back, d);
  back = isl_multi_aff_set_aff(back, d, isl_aff_add_constant_si(prev, -loop->step));
  isl_set *next = isl_set_preimage_multi_aff(isl_set_copy(inside), back);
  isl_set *past =
      isl_set_subtract(next, within_type(isl_set_universe(isl_set_get_space(inside)), d, t));
  isl_multi_aff *wrap = isl_multi_aff_identity(isl_space_map_from_set(isl_set_get_space(past)));
  isl_aff *x = isl_multi_aff_get_aff(wrap, d);
  x = isl_aff_add_constant_val(x, loop->step > 0 ? span : isl_val_neg(span));
  wrap = isl_multi_aff_set_aff(wrap, d, x);
  /* w is a wrapped value exactly when w -/+ span is a point past the end */
  isl_set *wrapped = isl_set_preimage_multi_aff(past, wrap);
  wrapped = isl_set_intersect(wrapped, isl_set_copy(cond));
  isl_bool stops = isl_set_is_empty(wrapped);
  isl_set_free(wrapped);
  if (stops == isl_bool_true && same == isl_bool_true) {
    isl_set_free(inside);
    return dom;
  }
  isl_set_free(dom);
  if (stops == isl_bool_true) return inside;
  isl_set_free(inside);
  fail(b, JIT_ERR_UNSUPPORTED, loop->loc,
       "the loop over '%s' wraps around its unsigned type and its condition still holds",
       loop->iter->name);
  return NULL;
}

static int build_for(builder *b, __isl_keep isl_set *context, sj_stmt *loop, built *out) {
  sj_model *m = b->m;
  isl_ctx *ctx = m->ctx;
  int d = b->depth;
  if (d >= MAX_DEPTH)
    return fail(b, JIT_ERR_UNSUPPORTED, loop->loc, "loops nest deeper than %s", "16");
  b->iters[d] = loop->iter;
  b->iter_pos[loop->iter->id] = d;
  b->depth = d + 1;
  if (d == 0) b->nest_depth = nest_depth(loop);

  isl_set *ext = isl_set_add_dims(isl_set_copy(context), isl_dim_set, 1);
  isl_space *space = isl_set_get_space(ext);
  sj_affine_env env;
  affine_env(b, &env, "the loop bound");
  /* the iterator's values are those of its type */
  isl_set *typed = within_type(isl_set_copy(ext), d, loop->iter->type);
  env.context = typed;
  isl_pw_aff *init = sj_affine(&env, loop->init, space);
  isl_set *cond = init ? sj_condition(&env, loop->cond, space) : NULL;
  isl_set_free(typed);
  isl_set *dom = NULL, *start = NULL;
  if (cond) {
    isl_local_space *ls = isl_local_space_from_space(isl_space_copy(space));
    isl_pw_aff *iv = isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, isl_dim_set, d));
    isl_pw_aff *delta = loop->step > 0 ? isl_pw_aff_sub(isl_pw_aff_copy(iv), isl_pw_aff_copy(init))
                                       : isl_pw_aff_sub(isl_pw_aff_copy(init), isl_pw_aff_copy(iv));
    isl_pw_aff *zero = isl_pw_aff_zero_on_domain(isl_local_space_from_space(isl_space_copy(space)));
    isl_set *range = isl_pw_aff_ge_set(isl_pw_aff_copy(delta), isl_pw_aff_copy(zero));
    start = isl_pw_aff_eq_set(isl_pw_aff_copy(iv), isl_pw_aff_copy(init));
    long step = loop->step > 0 ? loop->step : -loop->step;
    if (step > 1) {
      isl_val *v = isl_val_int_from_si(ctx, step);
      range = isl_set_intersect(range, isl_pw_aff_eq_set(isl_pw_aff_mod_val(delta, v), zero));
    } else {
      isl_pw_aff_free(delta);
      isl_pw_aff_free(zero);
    }
    isl_pw_aff_free(iv);
    ext = isl_set_intersect(ext, range);
    int ranged = monotone(b, loop, ext, cond, start);
    if (ranged >= 0) {
      dom = ranged ? isl_set_intersect(isl_set_copy(ext), isl_set_copy(cond))
                   : before_failure(ext, cond, d, loop->step);
      dom = without_idle_divs(isl_set_coalesce(dom));
      /* an upper bound by the form of the condition, a lower one from the start; an
       * unsigned iterator's type bounds it too */
      isl_bool bounded = obviously_monotone(loop->cond, loop->iter, loop->step) ||
                                 sj_type_is_unsigned(loop->iter->type)
                             ? isl_bool_true
                             : isl_set_is_bounded(dom);
      if (bounded == isl_bool_false) {
        fail(b, JIT_ERR_UNSUPPORTED, loop->loc, "the loop over '%s' has no bound",
             loop->iter->name);
        dom = isl_set_free(dom);
      } else {
        dom = loop_domain(b, loop, dom, cond, d);
      }
    }
  }
  if (env.failed) b->failed = 1;
  isl_pw_aff_free(init);
  isl_set_free(cond);
  isl_set_free(start);
  isl_set_free(ext);
  isl_space_free(space);

  built inner = {0};
  int first = m->nstmts;
  int rc = dom ? build_stmt(b, dom, loop->body[0], &inner) : -1;
  isl_set_free(dom);
  b->depth = d;
  b->iter_pos[loop->iter->id] = -1;
  if (rc) {
    built_clear(&inner);
    return -1;
  }
  if (!inner.sched) return 0; /* empty body */
  add_member(m, &inner, first, d, loop->step < 0);
  *out = inner;
  return 0;
}

static int build_if(builder *b, __isl_keep isl_set *context, sj_stmt *st, built *out) {
  int top = b->top;
  b->top = 0;
  sj_affine_env env;
  affine_env(b, &env, "the if condition");
  env.context = context;
  isl_space *space = isl_set_get_space(context);
  isl_set *cond = sj_condition(&env, st->cond, space);
  isl_space_free(space);
  if (!cond) {
    b->failed = 1;
    return -1;
  }
  cond = isl_set_intersect(cond, isl_set_copy(context));
  isl_set *other = isl_set_subtract(isl_set_copy(context), isl_set_copy(cond));
  isl_bool never = isl_set_is_empty(cond), always = isl_set_is_empty(other);
  if (never >= 0 && always >= 0 && never != always) {
    /* the sizes decide it (a guard clause, `if (N < 3) return;`): only the branch that runs,
     * as if the if were not there, so that the statements keep their nesting (where nothing
     * runs, both stay: a kernel of no statements is no stencil) */
    const sj_stmt *taken = never == isl_bool_true ? st->body[1] : st->body[0];
    b->top = top && taken && taken->kind == SJ_S_BLOCK;
    int rc =
        taken ? build_stmt(b, never == isl_bool_true ? other : cond, (sj_stmt *)taken, out) : 0;
    isl_set_free(cond);
    isl_set_free(other);
    return rc;
  }
  built then_part = {0}, else_part = {0};
  int rc = build_stmt(b, cond, st->body[0], &then_part);
  if (!rc && st->body[1]) rc = build_stmt(b, other, st->body[1], &else_part);
  isl_set_free(cond);
  isl_set_free(other);
  if (rc) {
    built_clear(&then_part);
    built_clear(&else_part);
    return -1;
  }
  out->sched = sequence(flush(&then_part), flush(&else_part));
  return 0;
}

static int build_stmt(builder *b, __isl_keep isl_set *context, sj_stmt *st, built *out) {
  switch (st->kind) {
  case SJ_S_FOR:
    return build_for(b, context, st, out);
  case SJ_S_IF:
    return build_if(b, context, st, out);
  case SJ_S_BLOCK:
    return build_block(b, context, st->body, st->nbody, out);
  default:
    return build_assignments(b, context, &st, 1, out);
  }
}

/* --- extents and bounds --- */

static int eval_extents(sj_model *m, sj_error *err) {
  const sj_func *fn = m->fn;
  m->extents = calloc(fn->narrays ? fn->narrays : 1, sizeof *m->extents);
  if (!m->extents) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *a = fn->params[p];
    if (a->kind != SJ_SYM_ARRAY) continue;
    long *ext = m->extents[a->id] = calloc(a->rank ? a->rank : 1, sizeof *ext);
    if (!ext) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
    long elems = 1;
    for (int k = 0; k < a->rank; k++) {
      if (!a->extents[k]) continue; /* open: infer_open_extents() */
      if (sj_const_value(a->extents[k], m->shape, &ext[k]))
        return sj_error_at(err, JIT_ERR_ARGS, m->source_name, a->extents[k]->loc,
                           "extent %d of '%s' overflows for these arguments", k + 1, a->name);
      if (ext[k] < 0)
        return sj_error_at(err, JIT_ERR_ARGS, m->source_name, a->extents[k]->loc,
                           "extent %d of '%s' is %ld for these arguments; extents must not be "
                           "negative",
                           k + 1, a->name, ext[k]);
      if (__builtin_mul_overflow(elems, ext[k], &elems) || elems > (1L << 40))
        return sj_error_at(err, JIT_ERR_ARGS, m->source_name, a->loc,
                           "array '%s' is too large for these arguments", a->name);
    }
  }
  return 0;
}

/* An open first extent (float *A, float A[][M]) is one past the largest first subscript of
 * any access for these arguments (0 where there is none): the array holds exactly what the
 * function reaches. */
static int infer_open_extents(sj_model *m, sj_error *err) {
  const sj_func *fn = m->fn;
  for (int p = 0; p < fn->nparams; p++) {
    const sj_sym *a = fn->params[p];
    if (a->kind != SJ_SYM_ARRAY || a->extents[0]) continue;
    isl_set *all = NULL;
    for (int i = 0; i < m->naccesses; i++) {
      if (m->accesses[i].ref->sym != a || m->accesses[i].again) continue;
      isl_set *r = isl_map_range(isl_map_copy(m->accesses[i].rel));
      all = all ? isl_set_union(all, r) : r;
    }
    long *ext = m->extents[a->id], elems = 1;
    ext[0] = 0;
    if (all && isl_set_is_empty(all) == isl_bool_false) {
      isl_val *top = isl_set_dim_max_val(all, 0);
      int ok = isl_val_is_int(top) == isl_bool_true && isl_val_cmp_si(top, 1L << 40) < 0;
      if (ok) ext[0] = isl_val_get_num_si(top) + 1;
      isl_val_free(top);
      if (!ok)
        return sj_error_at(err, JIT_ERR_ARGS, m->source_name, a->loc,
                           "array '%s' is too large for these arguments", a->name);
    } else {
      isl_set_free(all);
    }
    if (ext[0] < 0) ext[0] = 0; /* a negative subscript is reported by check_bounds */
    for (int k = 0; k < a->rank; k++)
      if (__builtin_mul_overflow(elems, ext[k], &elems) || elems > (1L << 40))
        return sj_error_at(err, JIT_ERR_ARGS, m->source_name, a->loc,
                           "array '%s' is too large for these arguments", a->name);
  }
  return 0;
}

static void format_point(__isl_keep isl_point *pt, int n, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = 0;
  for (int k = 0; k < n && len < size; k++) {
    isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, k);
    char *txt = isl_val_to_str(v); /* past long where an unsigned subscript wrapped */
    len += snprintf(buf + len, size - len, "[%s]", txt ? txt : "?");
    free(txt);
    isl_val_free(v);
  }
}

static int report_outside(sj_model *m, const sj_access *acc, __isl_take isl_set *outside,
                          sj_error *err) {
  const sj_sym *a = acc->ref->sym;
  char where[256], decl[128];
  isl_point *pt = isl_set_sample_point(outside);
  format_point(pt, a->rank, where, sizeof where);
  isl_point_free(pt);
  size_t len = 0;
  for (int k = 0; k < a->rank && len < sizeof decl; k++)
    len += snprintf(decl + len, sizeof decl - len, "[%ld]", m->extents[a->id][k]);
  return sj_error_at(err, JIT_ERR_ARGS, m->source_name, acc->ref->loc,
                     "%s of '%s' leaves its extents %s for these arguments: e.g. %s%s",
                     acc->is_write ? "write" : "read", a->name, decl, a->name, where);
}

/* One emptiness test per array for all its accesses; the offending access is looked for
 * only when there is one. */
static int check_array_bounds(sj_model *m, const sj_sym *a, sj_error *err) {
  isl_set *all = NULL;
  for (int i = 0; i < m->naccesses; i++) {
    if (m->accesses[i].ref->sym != a || m->accesses[i].again) continue;
    isl_set *r = isl_map_range(isl_map_copy(m->accesses[i].rel));
    all = all ? isl_set_union(all, r) : r;
  }
  if (!all) return 0;
  isl_set *outside = sj_outside_extents(all, a->rank, m->extents[a->id]);
  isl_bool empty = isl_set_is_empty(outside);
  isl_set_free(outside);
  if (empty < 0) return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed in the bounds check");
  if (empty) return 0;
  for (int i = 0; i < m->naccesses; i++) {
    if (m->accesses[i].ref->sym != a || m->accesses[i].again) continue;
    isl_set *out = sj_outside_extents(isl_map_range(isl_map_copy(m->accesses[i].rel)), a->rank,
                                      m->extents[a->id]);
    if (isl_set_is_empty(out) == isl_bool_false)
      return report_outside(m, &m->accesses[i], out, err);
    isl_set_free(out);
  }
  return 0;
}

static int check_bounds(sj_model *m, sj_error *err) {
  for (int p = 0; p < m->fn->nparams; p++)
    if (m->fn->params[p]->kind == SJ_SYM_ARRAY && check_array_bounds(m, m->fn->params[p], err))
      return err->status;
  for (int t = 0; t < m->ntemps; t++)
    if (check_array_bounds(m, m->temps[t], err)) return err->status;
  return 0;
}

/* The accesses of the locals kept in memory: their sites' elements, each in the space of
 * its statement. */
static int add_local_accesses(builder *b) {
  for (int i = 0; i < b->nsites; i++) {
    const sj_site *site = &b->sites[i];
    if (!site->repl) continue;
    sj_pstmt *s = site->stmt;
    for (int k = 0; k < s->depth; k++) b->iter_pos[s->iters[k]->id] = k;
    int rc = add_access(b, s, site->repl, site->is_write, site->guard);
    for (int k = 0; k < s->depth; k++) b->iter_pos[s->iters[k]->id] = -1;
    forget_indices(b);
    if (rc) return -1;
  }
  return 0;
}

int sj_model_build(isl_ctx *ctx, const sj_func *fn, const long *shape, const char *source_name,
                   sj_model **out, sj_error *err) {
  sj_model *m = calloc(1, sizeof *m);
  *out = NULL;
  if (!m) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  m->ctx = ctx;
  m->fn = fn;
  m->shape = shape;
  m->source_name = source_name;
  if (eval_extents(m, err)) {
    sj_model_free(m);
    return err->status;
  }
  builder b;
  memset(&b, 0, sizeof b);
  b.m = m;
  b.err = err;
  b.iter_pos = malloc((fn->niters + 1) * sizeof *b.iter_pos);
  b.decl = calloc(fn->nlocals + 1, sizeof *b.decl);
  built root = {0};
  int rc = b.iter_pos && b.decl ? 0 : sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  if (!rc) {
    for (int i = 0; i < fn->niters; i++) b.iter_pos[i] = -1;
    isl_set *top = isl_set_universe(loop_space(ctx, 0));
    b.top = fn->body->kind == SJ_S_BLOCK;
    rc = build_stmt(&b, top, fn->body, &root);
    isl_set_free(top);
  }
  if (!rc) m->original = flush(&root);
  built_clear(&root);
  if (!rc && !m->original) /* no statement at all: an empty schedule */
    m->original = isl_schedule_empty(isl_space_params_alloc(ctx, 0));
  if (!rc) rc = sj_locals_promote(m, b.sites, b.nsites, b.decl, err);
  if (!rc) rc = add_local_accesses(&b);
  for (int i = 0; i < b.nsites; i++) isl_set_free(b.sites[i].guard);
  free(b.sites);
  free(b.decl);
  free(b.iter_pos);
  if (rc) {
    sj_model_free(m);
    return err->status ? err->status
                       : sj_error_set(err, JIT_ERR_INTERNAL, "isl failed on the model");
  }
  if (!m->original) /* no statement at all: an empty schedule */
    m->original = isl_schedule_empty(isl_space_params_alloc(ctx, 0));
  m->domain = isl_schedule_get_domain(m->original);
  for (int i = 0; i < m->nstmts; i++)
    if (m->stmts[i]->depth > m->max_depth) m->max_depth = m->stmts[i]->depth;
  if (infer_open_extents(m, err) || check_bounds(m, err) || sj_model_view_flat(m, err)) {
    sj_model_free(m);
    return err->status;
  }
  m->reads = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
  m->writes = isl_union_map_copy(m->reads);
  for (int i = 0; i < m->naccesses; i++) {
    if (m->accesses[i].again) continue;
    isl_union_map **to = m->accesses[i].is_write ? &m->writes : &m->reads;
    *to = isl_union_map_union(*to, isl_union_map_from_map(isl_map_copy(m->accesses[i].rel)));
  }
  *out = m;
  return 0;
}

const long *sj_model_extents(const sj_model *m, int id) {
  return m->views && id < m->fn->narrays && m->views[id] ? m->views[id] : m->extents[id];
}

sj_pstmt *sj_model_stmt(const sj_model *m, __isl_keep isl_set *set) {
  if (m->whole) m = m->whole; /* a part's statements keep the whole's ids */
  const char *name = isl_set_get_tuple_name(set);
  char *end;
  if (!name || name[0] != 'S') return NULL;
  long id = strtol(name + 1, &end, 10);
  if (*end || id < 0 || id >= m->nstmts || strcmp(m->stmts[id]->name, name)) return NULL;
  return m->stmts[id];
}

int sj_model_nids(const sj_model *m) {
  return m->whole ? m->whole->nstmts : m->nstmts;
}

/* The accesses of m's statements first..end-1 and their union maps into p. */
static int part_accesses(const sj_model *m, int first, int end, sj_model *p) {
  p->accesses = calloc((size_t)m->naccesses + 1, sizeof *p->accesses);
  p->reads = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
  p->writes = isl_union_map_copy(p->reads);
  if (!p->accesses) return -1;
  for (int i = 0; i < m->naccesses; i++) {
    const sj_access *a = &m->accesses[i];
    if (a->stmt->id < first || a->stmt->id >= end) continue;
    p->accesses[p->naccesses++] = *a;
    isl_union_map **to = a->is_write ? &p->writes : &p->reads;
    *to = isl_union_map_union(*to, isl_union_map_from_map(isl_map_copy(a->rel)));
  }
  return p->reads && p->writes ? 0 : -1;
}

sj_model *sj_model_part(const sj_model *m, int first, int n) {
  sj_model *p = malloc(sizeof *p);
  if (!p) return NULL;
  *p = *m;
  p->whole = m;
  p->nparts = 0;
  p->parts = NULL;
  p->part_first = NULL;
  p->dep_flow = p->dep_anti = p->dep_output = NULL;
  p->accesses = NULL;
  p->reads = p->writes = NULL;
  p->stencil = 0;
  p->original = NULL;
  for (int i = first; i < first + n; i++)
    p->original = sequence(p->original, isl_schedule_copy(m->parts[i]));
  p->domain = isl_schedule_get_domain(p->original);
  int lo = m->part_first[first], end = m->part_first[first + n];
  p->nstmts = end - lo;
  p->stmts = malloc(((size_t)p->nstmts + 1) * sizeof *p->stmts);
  p->max_depth = 0;
  for (int i = 0; p->stmts && i < p->nstmts; i++) {
    p->stmts[i] = m->stmts[lo + i];
    if (p->stmts[i]->depth > p->max_depth) p->max_depth = p->stmts[i]->depth;
  }
  p->naccesses = 0;
  if (!p->stmts || !p->domain || part_accesses(m, lo, end, p)) {
    sj_model_free(p);
    return NULL;
  }
  return p;
}

/* What the whole model owns and its parts share. */
static void free_shared(sj_model *m) {
  for (int i = 0; i < m->nparts; i++) isl_schedule_free(m->parts[i]);
  free(m->parts);
  free(m->part_first);
  for (int i = 0; i < m->nstmts; i++) {
    isl_set_free(m->stmts[i]->domain);
    isl_union_map_free(m->stmts[i]->reads);
    isl_union_map_free(m->stmts[i]->writes);
    free(m->stmts[i]->iters);
    free(m->stmts[i]->body);
    free(m->stmts[i]);
  }
  free(m->point);
  for (int i = 0; i < m->naccesses; i++) isl_map_free(m->accesses[i].rel);
  if (m->extents)
    for (int i = 0; i < m->fn->narrays + m->ntemps; i++) free(m->extents[i]);
  free(m->extents);
  if (m->views)
    for (int i = 0; i < m->fn->narrays; i++) free(m->views[i]);
  free(m->views);
  free(m->views_why);
  free(m->temps);
  free(m->replaced);
  free(m->locals_why);
  sj_arena_free(m->arena);
}

void sj_model_free(sj_model *m) {
  if (!m) return;
  if (!m->whole) free_shared(m); /* a part owns only what sj_model_part made */
  free(m->stmts);
  free(m->accesses);
  isl_union_set_free(m->domain);
  isl_union_map_free(m->reads);
  isl_union_map_free(m->writes);
  isl_schedule_free(m->original);
  isl_union_map_free(m->dep_flow);
  isl_union_map_free(m->dep_anti);
  isl_union_map_free(m->dep_output);
  free(m);
}
