/* Locals that outlive one statement instance become arrays of their own, as pet models
 * them: a scalar is a zero-dimensional array, so that a reduction into it, a running maximum
 * or a value carried across loops and ifs is an access like any other and the dependences
 * the schedulers respect include it.
 *
 * A scalar's uses are first split into webs: the writes and the reads they reach (exact
 * dataflow, isl_union_access_info_compute_flow on each statement's first read and its
 * writes; inside one statement instance the order of evaluation decides). Each web gets an
 * array of its own, expanded along every enclosing loop whose iterations pass it no value:
 * one element per iteration, so the memory-based conflicts of the shared scalar vanish and
 * those iterations may run in parallel (privatization; a GPU thread or CPU worker touches
 * only the elements of its iterations). A local array is one array, expanded along the
 * loops around its declaration (in C each of their iterations has a fresh one). Expansion
 * stops at MAX_BYTES per array: beyond it the outer loops share one copy and keep their
 * order where a conflict says so. */
#include "sched/locals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/flow.h>
#include <isl/id.h>
#include <isl/schedule.h>

#include "base/buf.h"
#include "sched/affine.h"
#include "stenciljit.h"

enum { MAX_BYTES = 64 << 20 };

typedef struct dep {
  int from, to; /* the last write of the source statement, the first read of the sink */
  isl_map *rel; /* source instance -> sink instance */
} dep;

typedef struct promo {
  sj_model *m;
  sj_site *sites;
  int n;
  int *parent; /* union-find over sites: the webs */
  dep *deps;
  int ndeps;
  sj_buf why;
  sj_error *err;
} promo;

static int root(promo *p, int i) {
  while (p->parent[i] != i) i = p->parent[i] = p->parent[p->parent[i]];
  return i;
}

static void join(promo *p, int a, int b) {
  p->parent[root(p, a)] = root(p, b);
}

/* --- which locals stay in registers --- */

/* Whether local sym lives in its statement instances only: every use in one statement, the
 * first of them a write. */
static int confined(const promo *p, const sj_sym *sym) {
  const sj_site *first = NULL;
  for (int i = 0; i < p->n; i++) {
    const sj_site *s = &p->sites[i];
    if (s->sym != sym) continue;
    if (!first) first = s;
    if (s->stmt != first->stmt) return 0;
  }
  return !first || (first->is_write && !sym->rank);
}

/* --- webs of a scalar --- */

/* Inside each statement: a read after a write of the instance reads that write; the reads
 * before any write (the statement's upward-exposed reads) all read one incoming value. */
/* Whether site i is the first of its statement's (the sites of a statement are adjacent). */
static int starts_statement(const promo *p, int i) {
  return i == 0 || p->sites[i - 1].stmt != p->sites[i].stmt;
}

static void join_in_statements(promo *p, const sj_sym *sym) {
  for (int i = 0; i < p->n; i++) {
    const sj_site *s = &p->sites[i];
    if (!starts_statement(p, i)) continue;
    int last_write = -1, first_read = -1;
    for (int j = i; j < p->n && p->sites[j].stmt == s->stmt; j++) {
      if (p->sites[j].sym != sym) continue;
      if (p->sites[j].is_write)
        last_write = j;
      else if (last_write >= 0)
        join(p, j, last_write);
      else if (first_read >= 0)
        join(p, j, first_read);
      else
        first_read = j;
    }
  }
}

/* The site of sym in statement s that is its last write (writes) or first read before any
 * write (!writes); -1 if none. */
static int summary_site(const promo *p, const sj_sym *sym, const sj_pstmt *s, int writes) {
  int found = -1;
  for (int i = 0; i < p->n; i++) {
    const sj_site *x = &p->sites[i];
    if (x->sym != sym || x->stmt != s) continue;
    if (writes && x->is_write) found = i;
    if (!writes && x->is_write) return found;
    if (!writes && !x->is_write && found < 0) found = i;
  }
  return found;
}

/* One dependence of the dataflow: the sites it joins, and its instances. */
static isl_stat note_dep(__isl_take isl_map *full, void *user) {
  promo *p = user;
  /* source -> [sink -> scalar]: the scalar from its id, then source -> sink */
  isl_space *space = isl_space_unwrap(isl_space_range(isl_map_get_space(full)));
  isl_id *data = isl_space_get_tuple_id(space, isl_dim_out);
  const sj_sym *sym = isl_id_get_user(data);
  isl_id_free(data);
  isl_space_free(space);
  isl_map *rel = isl_map_range_factor_domain(full);
  isl_id *from_id = isl_map_get_tuple_id(rel, isl_dim_in);
  isl_id *to_id = isl_map_get_tuple_id(rel, isl_dim_out);
  int from = summary_site(p, sym, isl_id_get_user(from_id), 1);
  int to = summary_site(p, sym, isl_id_get_user(to_id), 0);
  isl_id_free(from_id);
  isl_id_free(to_id);
  if (!rel || from < 0 || to < 0) {
    isl_map_free(rel);
    return isl_stat_error;
  }
  join(p, from, to);
  dep *grown = realloc(p->deps, (size_t)(p->ndeps + 1) * sizeof *p->deps);
  if (!grown) {
    isl_map_free(rel);
    sj_error_set(p->err, JIT_ERR_NOMEM, "out of memory");
    return isl_stat_error;
  }
  p->deps = grown;
  p->deps[p->ndeps++] = (dep){from, to, rel};
  return isl_stat_ok;
}

/* Adds to *reads and *writes the accesses of scalar sym: a statement's first read before any
 * write and its writes (each a must-write: statements are unconditional within their
 * domains), to a zero-dimensional space whose id points at sym. */
static void scalar_accesses(promo *p, const sj_sym *sym, isl_union_map **reads,
                            isl_union_map **writes) {
  isl_ctx *ctx = p->m->ctx;
  isl_space *space = isl_space_set_alloc(ctx, 0, 0);
  space = isl_space_set_tuple_id(space, isl_dim_set, isl_id_alloc(ctx, sym->name, (void *)sym));
  for (int i = 0; i < p->n; i++) {
    if (!starts_statement(p, i)) continue;
    const sj_pstmt *st = p->sites[i].stmt;
    int r = summary_site(p, sym, st, 0) >= 0, w = summary_site(p, sym, st, 1) >= 0;
    if (!r && !w) continue;
    isl_map *rel = isl_map_from_domain_and_range(isl_set_copy(st->domain),
                                                 isl_set_universe(isl_space_copy(space)));
    if (r) *reads = isl_union_map_union(*reads, isl_union_map_from_map(isl_map_copy(rel)));
    if (w) *writes = isl_union_map_union(*writes, isl_union_map_from_map(isl_map_copy(rel)));
    isl_map_free(rel);
  }
  isl_space_free(space);
}

/* The value flow of the scalars syms between statement instances, in one dataflow analysis
 * for all of them: which write each first read of a statement reads. */
static int flows(promo *p, const sj_sym *const *syms, int nsyms) {
  sj_model *m = p->m;
  isl_union_map *reads = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
  isl_union_map *writes = isl_union_map_copy(reads);
  for (int k = 0; k < nsyms; k++) scalar_accesses(p, syms[k], &reads, &writes);
  isl_union_access_info *info = isl_union_access_info_from_sink(reads);
  info = isl_union_access_info_set_must_source(info, writes);
  info = isl_union_access_info_set_schedule(info, isl_schedule_copy(m->original));
  isl_union_flow *flow = isl_union_access_info_compute_flow(info);
  isl_union_map *deps = isl_union_flow_get_full_must_dependence(flow);
  isl_union_flow_free(flow);
  isl_stat st = deps ? isl_union_map_foreach_map(deps, note_dep, p) : isl_stat_error;
  isl_union_map_free(deps);
  if (st < 0 && !p->err->status)
    sj_error_set(p->err, JIT_ERR_INTERNAL, "isl failed on the flow of the locals");
  if (st < 0) return p->err->status;
  return 0;
}

/* --- the arrays --- */

/* The number of loops that enclose every site of web w (a prefix of each site's loops). */
static int common_depth(const promo *p, int w) {
  const sj_pstmt *first = NULL;
  int depth = 0;
  for (int i = 0; i < p->n; i++) {
    if (root((promo *)p, i) != w) continue;
    const sj_pstmt *s = p->sites[i].stmt;
    if (!first) {
      first = s;
      depth = s->depth;
      continue;
    }
    int k = 0;
    while (k < depth && k < s->depth && s->iters[k] == first->iters[k]) k++;
    depth = k;
  }
  return depth;
}

/* Whether some value of web w flows from one iteration of the loop at depth d to another. */
static int carried(const promo *p, int w, int d) {
  for (int k = 0; k < p->ndeps; k++) {
    if (root((promo *)p, p->deps[k].from) != w) continue;
    isl_map *rel = p->deps[k].rel;
    isl_map *same = isl_map_equate(isl_map_copy(rel), isl_dim_in, d, isl_dim_out, d);
    isl_bool kept = isl_map_is_subset(rel, same);
    isl_map_free(same);
    if (kept != isl_bool_true) return 1;
  }
  return 0;
}

/* The range of the loop at depth d over the statements of web w's sites. */
static int loop_range(const promo *p, int w, int d, long *lo, long *hi) {
  int any = 0;
  *lo = *hi = 0;
  for (int i = 0; i < p->n; i++) {
    if (root((promo *)p, i) != w) continue;
    long a, b;
    if (sj_set_dim_range(p->sites[i].stmt->domain, d, &a, &b)) return -1;
    if (a > b) continue;
    if (!any || a < *lo) *lo = a;
    if (!any || b > *hi) *hi = b;
    any = 1;
  }
  return 0;
}

static int unique_name(const sj_model *m, const char *name) {
  for (int i = 0; i < m->fn->nparams; i++)
    if (!strcmp(m->fn->params[i]->name, name)) return 0;
  for (int t = 0; t < m->ntemps; t++)
    if (!strcmp(m->temps[t]->name, name)) return 0;
  return 1;
}

/* A new temporary for local sym: its own dims (loop depths, ranges) in front of the local's
 * extents; NULL when out of memory. */
static sj_sym *new_temp(promo *p, const sj_sym *sym, int ndims, const long *len) {
  sj_model *m = p->m;
  sj_sym *t = sj_arena_alloc(m->arena, sizeof *t);
  *t = *sym;
  t->kind = SJ_SYM_ARRAY;
  t->id = m->fn->narrays + m->ntemps;
  t->param = -1;
  t->is_const = 0;
  t->rank = ndims + sym->rank;
  t->extents = NULL;
  char name[96];
  snprintf(name, sizeof name, "%s", sym->name);
  for (int k = 1; !unique_name(m, name); k++) snprintf(name, sizeof name, "%s_%d", sym->name, k);
  t->name = sj_arena_strndup(m->arena, name, strlen(name));
  sj_sym **temps = realloc(m->temps, (size_t)(m->ntemps + 1) * sizeof *m->temps);
  if (temps) m->temps = temps;
  long **extents =
      temps ? realloc(m->extents, (size_t)(m->fn->narrays + m->ntemps + 1) * sizeof *m->extents)
            : NULL;
  if (extents) m->extents = extents;
  long *ext = extents ? calloc((size_t)t->rank + 1, sizeof *ext) : NULL;
  if (!ext) return NULL;
  m->extents[t->id] = ext;
  for (int k = 0; k < ndims; k++) ext[k] = len[k];
  for (int k = 0; k < sym->rank; k++) sj_const_value(sym->extents[k], m->shape, &ext[ndims + k]);
  m->temps[m->ntemps++] = t;
  return t;
}

sj_expr *sj_model_expr(sj_model *m, sj_expr_kind kind, sj_type type, sj_loc loc, int nargs) {
  sj_expr *e = sj_arena_alloc(m->arena, sizeof *e);
  e->kind = kind;
  e->type = type;
  e->loc = loc;
  e->nargs = nargs;
  if (nargs) e->args = sj_arena_alloc(m->arena, (size_t)nargs * sizeof *e->args);
  return e;
}

/* The element of temporary t a site uses: iterator - lo for each expanded loop, then the
 * local array's own subscripts. */
static const sj_expr *element(sj_model *m, const sj_site *s, sj_sym *t, int ndims, const int *dims,
                              const long *lo) {
  sj_loc loc = s->ref ? s->ref->loc : ((const sj_stmt *)s->node)->loc;
  sj_expr *e = sj_model_expr(m, SJ_E_INDEX, t->type, loc, t->rank);
  e->sym = t;
  for (int k = 0; k < ndims; k++) {
    sj_sym *iter = s->stmt->iters[dims[k]];
    sj_expr *it = sj_model_expr(m, SJ_E_VAR, iter->type, loc, 0);
    it->sym = iter;
    if (!lo[k]) {
      e->args[k] = it;
      continue;
    }
    sj_expr *c = sj_model_expr(m, SJ_E_INT, iter->type, loc, 0);
    c->ival = lo[k];
    sj_expr *d = e->args[k] = sj_model_expr(m, SJ_E_BINARY, iter->type, loc, 2);
    d->op = SJ_OP_SUB;
    d->args[0] = it;
    d->args[1] = c;
  }
  for (int k = ndims; k < t->rank; k++) e->args[k] = s->ref->args[k - ndims];
  return e;
}

static void describe(promo *p, const sj_sym *sym, const sj_sym *t, int ndims, const int *dims,
                     const sj_pstmt *s, const char *shared_why) {
  sj_buf *b = &p->why;
  sj_buf_printf(b, "  local '%s' (line %d) in memory as %s", sym->name, sym->loc.line, t->name);
  for (int k = 0; k < t->rank; k++) sj_buf_printf(b, "[%ld]", p->m->extents[t->id][k]);
  if (ndims) {
    sj_buf_puts(b, ": one per iteration of");
    for (int k = 0; k < ndims; k++)
      sj_buf_printf(b, "%s '%s'", k ? "," : "", s->iters[dims[k]]->name);
    sj_buf_puts(b, " (private to each iteration)");
  }
  if (shared_why) sj_buf_printf(b, "%s%s", ndims ? "; " : ": ", shared_why);
  sj_buf_puts(b, "\n");
}

/* The array of web w (its sites' root) of local sym, expanded along the candidate loops
 * 0 .. depth-1 that keep[] allows, within MAX_BYTES. */
static int make_array(promo *p, const sj_sym *sym, int w, int depth, const int *keep,
                      const char *shared_why) {
  int dims[32], ndims = 0;
  long lo[32], len[32];
  const sj_pstmt *any = NULL;
  for (int i = 0; i < p->n && !any; i++)
    if (root(p, i) == w) any = p->sites[i].stmt;
  double bytes = sj_type_size(sym->type);
  for (int k = 0; k < sym->rank; k++) {
    long e = 1;
    sj_const_value(sym->extents[k], p->m->shape, &e);
    bytes *= (double)e;
  }
  for (int d = depth - 1; d >= 0 && ndims < 32; d--) { /* innermost first: they stay */
    long a, b;
    if (!keep[d]) continue;
    if (loop_range(p, w, d, &a, &b)) return sj_error_set(p->err, JIT_ERR_INTERNAL, "isl failed");
    if (bytes * (double)(b - a + 1) > MAX_BYTES) {
      shared_why = "the outer loops share it (one copy per iteration would exceed 64 MiB)";
      break;
    }
    bytes *= (double)(b - a + 1);
    memmove(dims + 1, dims, (size_t)ndims * sizeof *dims);
    memmove(lo + 1, lo, (size_t)ndims * sizeof *lo);
    memmove(len + 1, len, (size_t)ndims * sizeof *len);
    dims[0] = d, lo[0] = a, len[0] = b - a + 1;
    ndims++;
  }
  sj_sym *t = new_temp(p, sym, ndims, len);
  if (!t) return sj_error_set(p->err, JIT_ERR_NOMEM, "out of memory");
  for (int i = 0; i < p->n; i++)
    if (root(p, i) == w) p->sites[i].repl = element(p->m, &p->sites[i], t, ndims, dims, lo);
  describe(p, sym, t, ndims, dims, any, shared_why);
  return 0;
}

/* A scalar: its webs, each an array expanded along the loops it does not flow across. */
static int promote_scalar(promo *p, const sj_sym *sym) {
  for (int i = 0; i < p->n; i++) {
    if (p->sites[i].sym != sym || root(p, i) != i) continue;
    int depth = common_depth(p, i), keep[64], carries = 0;
    for (int d = 0; d < depth && d < 64; d++) carries += !(keep[d] = !carried(p, i, d));
    if (depth > 64) depth = 64;
    const char *why = carries  ? "a value flows from one iteration of a loop around it to the "
                                 "next, so that loop keeps its order"
                      : !depth ? "outside every loop"
                               : NULL;
    if (make_array(p, sym, i, depth, keep, why)) return -1;
  }
  return 0;
}

/* A local array: one web, expanded along the loops around its declaration. */
static int promote_array(promo *p, const sj_sym *sym, const sj_pstmt *decl) {
  int first = -1, keep[64];
  for (int i = 0; i < p->n; i++) {
    if (p->sites[i].sym != sym) continue;
    if (first < 0) first = i;
    join(p, i, first);
  }
  if (first < 0) return 0;
  int depth = decl ? decl->depth : 0;
  if (depth > 64) depth = 64;
  for (int d = 0; d < depth; d++) keep[d] = 1;
  return make_array(p, sym, root(p, first), depth, keep,
                    depth ? NULL : "declared outside every loop: one copy for all of them");
}

static int by_node(const void *a, const void *b) {
  const sj_replaced *x = a, *y = b;
  return x->node < y->node ? -1 : x->node > y->node;
}

int sj_locals_promote(sj_model *m, sj_site *sites, int n, sj_pstmt *const *decl, sj_error *err) {
  promo p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.sites = sites;
  p.n = n;
  p.err = err;
  p.parent = malloc(((size_t)n + 1) * sizeof *p.parent);
  const sj_func *fn = m->fn;
  /* the locals that need memory, by id; the webs of the scalars among them from one
   * dataflow analysis */
  const sj_sym **syms = calloc(2 * (size_t)fn->nlocals + 1, sizeof *syms), **scalars;
  if (!p.parent || !syms) {
    free(p.parent);
    free(syms);
    return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  }
  m->arena = sj_arena_new();
  scalars = syms + fn->nlocals;
  int nsyms = 0, nscalars = 0;
  for (int id = 0; id < fn->nlocals; id++) {
    const sj_sym *sym = NULL;
    for (int i = 0; i < n && !sym; i++)
      if (sites[i].sym->id == id) sym = sites[i].sym;
    if (!sym || confined(&p, sym)) continue;
    syms[nsyms++] = sym;
    if (!sym->rank) scalars[nscalars++] = sym;
  }
  for (int i = 0; i < n; i++) p.parent[i] = i;
  for (int k = 0; k < nscalars; k++) join_in_statements(&p, scalars[k]);
  int rc = nscalars ? flows(&p, scalars, nscalars) : 0;
  for (int k = 0; k < nsyms && !rc; k++) {
    const sj_sym *sym = syms[k];
    rc = sym->rank ? promote_array(&p, sym, decl[sym->id]) : promote_scalar(&p, sym);
  }
  for (int k = 0; k < p.ndeps; k++) isl_map_free(p.deps[k].rel);
  free(syms);
  free(p.deps);
  free(p.parent);
  sj_replaced *pairs = calloc((size_t)n + 1, sizeof *pairs);
  int npairs = 0;
  for (int i = 0; pairs && i < n; i++)
    if (sites[i].repl) pairs[npairs++] = (sj_replaced){sites[i].node, sites[i].repl};
  int added = pairs ? sj_model_add_replaced(m, pairs, npairs) : -1;
  free(pairs);
  if (added) {
    sj_buf_free(&p.why);
    return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  }
  m->locals_why = p.why.len ? sj_buf_take(&p.why) : NULL;
  sj_buf_free(&p.why);
  return rc ? (err->status ? err->status : JIT_ERR_INTERNAL) : 0;
}

int sj_model_add_replaced(sj_model *m, const sj_replaced *pairs, int n) {
  sj_replaced *grown = realloc(m->replaced, ((size_t)m->nreplaced + n + 1) * sizeof *grown);
  if (!grown) return -1;
  m->replaced = grown;
  memcpy(grown + m->nreplaced, pairs, (size_t)n * sizeof *pairs);
  m->nreplaced += n;
  qsort(m->replaced, (size_t)m->nreplaced, sizeof *m->replaced, by_node);
  return 0;
}

const sj_expr *sj_model_replaced(const sj_model *m, const void *node) {
  sj_replaced key = {node, NULL};
  const sj_replaced *r =
      m->nreplaced ? bsearch(&key, m->replaced, (size_t)m->nreplaced, sizeof *m->replaced, by_node)
                   : NULL;
  return r ? r->repl : NULL;
}
