/* Dependences. Scheduling needs only to know which instance pairs conflict: both touch one
 * element and one writes. Which of the two comes first is the original order's business,
 * and every test made here (is a loop parallel, is a time step free of conflicts) is
 * symmetric, so the relation holds both orders: cheap compositions of the accesses. The exact
 * value-based relations come from isl's access-info API, which costs some thirty times more, so
 * they are computed on demand: for explanations and for transformations that need
 * distances of live values. Every write of the subset is a must-write (assignments are
 * unconditional inside a statement), so flow and output relations are exact. */
#include "sched/sched.h"

#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/space.h>
#include <isl/val.h>

#include "stenciljit.h"

#include <stdio.h>

/* x -> y where x accesses an element of from and y the same element of to. */
static __isl_give isl_union_map *conflicts(__isl_keep isl_union_map *from,
                                           __isl_keep isl_union_map *to) {
  return isl_union_map_apply_range(isl_union_map_copy(from),
                                   isl_union_map_reverse(isl_union_map_copy(to)));
}

int sj_model_dependences(sj_model *m, sj_error *err) {
  isl_space *params = isl_space_params_alloc(m->ctx, 0);
  for (int i = 0; i < m->nstmts; i++) {
    m->stmts[i]->reads = isl_union_map_empty(isl_space_copy(params));
    m->stmts[i]->writes = isl_union_map_empty(isl_space_copy(params));
  }
  isl_space_free(params);
  for (int i = 0; i < m->naccesses; i++) {
    sj_pstmt *s = m->accesses[i].stmt;
    isl_union_map **to = m->accesses[i].is_write ? &s->writes : &s->reads;
    *to = isl_union_map_add_map(*to, isl_map_copy(m->accesses[i].rel));
  }
  for (int i = 0; i < m->nstmts; i++)
    if (!m->stmts[i]->reads || !m->stmts[i]->writes)
      return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed indexing the accesses");
  return 0;
}

/* The accesses (and schedule, when one is asked for) of one statement's instances. */
typedef struct stmt_part {
  isl_union_map *reads, *writes, *sched;
  const sj_pstmt *stmt;
} stmt_part;

typedef struct gather {
  const sj_model *m;
  isl_union_map *sched; /* optional */
  stmt_part *parts;
  int n;
} gather;

static isl_stat gather_set(__isl_take isl_set *set, void *user) {
  gather *g = user;
  const sj_pstmt *s = sj_model_stmt(g->m, set);
  if (!s || !s->reads) {
    isl_set_free(set);
    return isl_stat_ok;
  }
  isl_union_set *u = isl_union_set_from_set(set);
  stmt_part *p = &g->parts[g->n++];
  p->stmt = s;
  p->reads = isl_union_map_intersect_domain(isl_union_map_copy(s->reads), isl_union_set_copy(u));
  p->writes = isl_union_map_intersect_domain(isl_union_map_copy(s->writes), isl_union_set_copy(u));
  p->sched = g->sched ? isl_union_map_intersect_domain(isl_union_map_copy(g->sched), u) : NULL;
  if (!g->sched) isl_union_set_free(u);
  return p->reads && p->writes && (p->sched || !g->sched) ? isl_stat_ok : isl_stat_error;
}

/* The parts of the statements among names, one per statement; -1 when isl fails. */
static int gather_parts(gather *g, __isl_keep isl_union_set *among) {
  isl_size n = isl_union_set_n_set(among);
  g->parts = calloc(n > 0 ? (size_t)n : 1, sizeof *g->parts);
  g->n = 0;
  return n < 0 || isl_union_set_foreach_set(among, gather_set, g) < 0 ? -1 : 0;
}

static void gather_free(gather *g) {
  for (int i = 0; i < g->n; i++) {
    isl_union_map_free(g->parts[i].reads);
    isl_union_map_free(g->parts[i].writes);
    isl_union_map_free(g->parts[i].sched);
  }
  free(g->parts);
}

/* The conflicts from instances of a to instances of b, in that order only. */
static __isl_give isl_union_map *pair_conflicts(const stmt_part *a, const stmt_part *b) {
  isl_union_map *c = conflicts(a->writes, b->reads);
  c = isl_union_map_union(c, conflicts(a->reads, b->writes));
  return isl_union_map_union(c, conflicts(a->writes, b->writes));
}

__isl_give isl_union_map *sj_model_conflicts(const sj_model *m, __isl_keep isl_union_set *among) {
  gather g = {m, NULL, NULL, 0};
  isl_union_map *deps = NULL;
  if (gather_parts(&g, among) == 0) {
    deps = isl_union_map_empty(isl_space_params_alloc(m->ctx, 0));
    for (int i = 0; i < g.n; i++)
      for (int j = i; j < g.n; j++)
        deps = isl_union_map_union(deps, pair_conflicts(&g.parts[i], &g.parts[j]));
    deps = isl_union_map_union(deps, isl_union_map_reverse(isl_union_map_copy(deps)));
  }
  gather_free(&g);
  return deps;
}

static __isl_give isl_union_flow *flow(__isl_keep isl_schedule *order,
                                       __isl_keep isl_union_map *sink,
                                       __isl_keep isl_union_map *must,
                                       __isl_keep isl_union_map *may) {
  isl_union_access_info *ai = isl_union_access_info_from_sink(isl_union_map_copy(sink));
  ai = isl_union_access_info_set_must_source(ai, isl_union_map_copy(must));
  if (may) ai = isl_union_access_info_set_may_source(ai, isl_union_map_copy(may));
  ai = isl_union_access_info_set_schedule(ai, isl_schedule_copy(order));
  return isl_union_access_info_compute_flow(ai);
}

/* isl's flow analysis takes a sink map of many disjuncts as a whole: heat-3d's 27 reads of one
 * array, one map, took 2.2 s at 40^3 where a reference of its own for each disjunct took 0.8,
 * and heat-2d's 9 reads 130 ms against 80. A map of up to 8 (laplacian-3d's 7 points, jacobi-2d's
 * 5, statements of one or two) was 10-40% faster untagged. */
enum { TAG_FROM = 9 };

static isl_stat most_disjuncts(__isl_take isl_map *m, void *user) {
  isl_size n = isl_map_n_basic_map(m);
  if (n > *(int *)user) *(int *)user = n;
  isl_map_free(m);
  return n < 0 ? isl_stat_error : isl_stat_ok;
}

/* Accesses tagged by reference: [S[x] -> R[]] -> A[..], a reference R of its own for each
 * disjunct; untag gathers the projections [S[x] -> R[]] -> S[x] of those of the reads and the
 * writes alike (next numbers the references across both). */
typedef struct tagging {
  isl_union_map *tagged;
  isl_union_pw_multi_aff *untag;
  int next;
} tagging;

static isl_stat tag_basic(__isl_take isl_basic_map *bm, void *user) {
  tagging *t = user;
  char name[24];
  snprintf(name, sizeof name, "R%d", t->next++);
  isl_space *ref = isl_space_set_alloc(isl_basic_map_get_ctx(bm), 0, 0);
  ref = isl_space_set_tuple_name(ref, isl_dim_set, name);
  isl_space *dom = isl_space_domain(isl_basic_map_get_space(bm));
  isl_multi_aff *proj = isl_multi_aff_domain_map(isl_space_map_from_domain_and_range(dom, ref));
  isl_map *m =
      isl_map_preimage_domain_multi_aff(isl_map_from_basic_map(bm), isl_multi_aff_copy(proj));
  t->tagged = isl_union_map_add_map(t->tagged, m);
  t->untag =
      isl_union_pw_multi_aff_add_pw_multi_aff(t->untag, isl_pw_multi_aff_from_multi_aff(proj));
  return t->tagged && t->untag ? isl_stat_ok : isl_stat_error;
}

static isl_stat tag_map(__isl_take isl_map *m, void *user) {
  isl_stat r = isl_map_foreach_basic_map(m, tag_basic, user);
  isl_map_free(m);
  return r;
}

static __isl_give isl_union_map *tagged(__isl_keep isl_union_map *acc, tagging *t) {
  t->tagged = isl_union_map_empty(isl_union_map_get_space(acc));
  if (isl_union_map_foreach_map(acc, tag_map, t) < 0) t->tagged = isl_union_map_free(t->tagged);
  return t->tagged;
}

static __isl_give isl_union_map *untagged(__isl_take isl_union_map *dep) {
  dep = isl_union_map_range_factor_domain(isl_union_map_domain_factor_domain(dep));
  return isl_union_map_coalesce(dep);
}

/* Flow (dep[0]) and output (dep[2]) dependences, and in dep[1] the reads since the last write
 * before each write. */
static void relations(__isl_keep isl_schedule *order, __isl_keep isl_union_map *reads,
                      __isl_keep isl_union_map *writes, isl_union_map **dep) {
  /* flow: the last write before each read */
  isl_union_flow *f = flow(order, reads, writes, NULL);
  dep[0] = isl_union_flow_get_must_dependence(f);
  isl_union_flow_free(f);
  /* output: the last write before each write */
  f = flow(order, writes, writes, NULL);
  dep[2] = isl_union_flow_get_must_dependence(f);
  isl_union_flow_free(f);
  f = flow(order, writes, writes, reads);
  dep[1] = isl_union_flow_get_may_dependence(f);
  isl_union_flow_free(f);
}

int sj_exact_dependences(__isl_keep isl_union_map *reads, __isl_keep isl_union_map *writes,
                         __isl_keep isl_schedule *order, int by_reference, isl_union_map **dep) {
  int most = 0;
  if (by_reference && isl_union_map_foreach_map(reads, most_disjuncts, &most) < 0) return -1;
  if (most < TAG_FROM) {
    relations(order, reads, writes, dep);
  } else {
    tagging t = {NULL, isl_union_pw_multi_aff_empty(isl_union_map_get_space(reads)), 0};
    isl_union_map *r = tagged(reads, &t), *w = tagged(writes, &t);
    isl_schedule *o = isl_schedule_pullback_union_pw_multi_aff(isl_schedule_copy(order), t.untag);
    relations(o, r, w, dep);
    for (int i = 0; i < 3; i++) dep[i] = untagged(dep[i]);
    isl_schedule_free(o);
    isl_union_map_free(r);
    isl_union_map_free(w);
  }
  /* anti: those reads, less the pairs that are output dependences (untagged: as tagged
   * references a read and a write never pair alike) */
  dep[1] = isl_union_map_subtract(dep[1], isl_union_map_copy(dep[2]));
  if (dep[0] && dep[1] && dep[2]) return 0;
  for (int i = 0; i < 3; i++) dep[i] = isl_union_map_free(dep[i]);
  return -1;
}

int sj_model_exact_dependences(sj_model *m, sj_error *err) {
  if (m->dep_flow) return 0;
  isl_union_map *dep[3];
  if (sj_exact_dependences(m->reads, m->writes, m->original, 1, dep))
    return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed computing exact dependences");
  m->dep_flow = dep[0];
  m->dep_anti = dep[1];
  m->dep_output = dep[2];
  return 0;
}

/* Clears parallel[k] for the members along which some conflict of c (mapped through
 * the schedules of its two sides) has a nonzero distance while the prefix and the members
 * before k have none; *live counts the members still parallel. -1 when isl fails. */
static int narrow(__isl_take isl_union_map *c, const stmt_part *a, const stmt_part *b, int n,
                  int *parallel, int *live) {
  c = isl_union_map_apply_domain(c, isl_union_map_copy(a->sched));
  c = isl_union_map_apply_range(c, isl_union_map_copy(b->sched));
  isl_union_set *deltas = isl_union_map_deltas(c);
  isl_bool none = isl_union_set_is_empty(deltas);
  if (none != isl_bool_false) {
    isl_union_set_free(deltas);
    return none < 0 ? -1 : 0;
  }
  isl_set *dist = isl_set_from_union_set(deltas);
  int np = (int)isl_set_dim(dist, isl_dim_set) - n; /* the prefix's dimensions come first */
  /* Distances of the conflicts the band must respect: zero on the prefix. */
  for (int i = 0; i < np; i++) dist = isl_set_fix_si(dist, isl_dim_set, i, 0);
  int rc = dist ? 0 : -1;
  for (int k = 0; k < n && !rc; k++) {
    if (parallel[k]) {
      isl_set *nonzero =
          isl_set_union(isl_set_lower_bound_si(isl_set_copy(dist), isl_dim_set, np + k, 1),
                        isl_set_upper_bound_si(isl_set_copy(dist), isl_dim_set, np + k, -1));
      isl_bool empty = isl_set_is_empty(nonzero);
      isl_set_free(nonzero);
      if (empty < 0) rc = -1;
      if (empty == isl_bool_false) parallel[k] = 0, --*live;
    }
    /* conflicts separated here do not constrain the members after it */
    dist = isl_set_fix_si(dist, isl_dim_set, np + k, 0);
  }
  isl_set_free(dist);
  return rc;
}

/* The accumulations of the reductions of part a's statement among red (their reads and
 * writes of x[f]) as a part of their own, *red, and the rest of a's accesses, *rest; 0 when
 * the statement has none. */
static int split_reductions(const stmt_part *a, const sj_reduction *red, int nred, stmt_part *acc,
                            stmt_part *rest) {
  isl_union_set *dom = isl_union_map_domain(isl_union_map_copy(a->sched));
  isl_space *space = isl_union_map_get_space(a->reads);
  acc->reads = isl_union_map_empty(isl_space_copy(space));
  acc->writes = isl_union_map_empty(space);
  int found = 0;
  for (int i = 0; i < nred; i++) {
    if (red[i].stmt != a->stmt) continue;
    found = 1;
    acc->reads = isl_union_map_add_map(acc->reads, isl_map_copy(red[i].read->rel));
    acc->writes = isl_union_map_add_map(acc->writes, isl_map_copy(red[i].write->rel));
  }
  acc->reads = isl_union_map_intersect_domain(acc->reads, isl_union_set_copy(dom));
  acc->writes = isl_union_map_intersect_domain(acc->writes, dom);
  acc->sched = rest->sched = a->sched;
  acc->stmt = rest->stmt = a->stmt;
  rest->reads =
      isl_union_map_subtract(isl_union_map_copy(a->reads), isl_union_map_copy(acc->reads));
  rest->writes =
      isl_union_map_subtract(isl_union_map_copy(a->writes), isl_union_map_copy(acc->writes));
  return found;
}

/* Narrows the members by the conflicts of a with b; where a is b and its statement has
 * reductions among red, the conflicts among their accumulations are left out (each with
 * the rest, and the rest among itself, remain). */
static int narrow_pair(const stmt_part *a, const stmt_part *b, const sj_reduction *red, int nred,
                       int n, int *parallel, int *live) {
  stmt_part acc, rest;
  if (a != b || !nred || !split_reductions(a, red, nred, &acc, &rest)) {
    if (a == b && nred) { /* split_reductions made them */
      isl_union_map_free(acc.reads), isl_union_map_free(acc.writes);
      isl_union_map_free(rest.reads), isl_union_map_free(rest.writes);
    }
    return narrow(pair_conflicts(a, b), a, b, n, parallel, live);
  }
  int rc = narrow(pair_conflicts(&rest, &rest), a, b, n, parallel, live);
  if (!rc) rc = narrow(pair_conflicts(&rest, &acc), a, b, n, parallel, live);
  isl_union_map_free(acc.reads), isl_union_map_free(acc.writes);
  isl_union_map_free(rest.reads), isl_union_map_free(rest.writes);
  return rc;
}

/* Pair by pair of statements, never the band's whole relation (quadratic in size), and
 * nearest pairs first: a statement with itself or its neighbour usually settles every
 * member, and the search stops when no member is left parallel. A distance and its
 * negation settle the same members, so each pair is tested in one order. */
int sj_band_parallel_reduced(const sj_model *m, __isl_keep isl_schedule_node *band,
                             const sj_reduction *red, int nred, int *parallel) {
  int n = isl_schedule_node_band_n_member(band);
  if (m->stencil) { /* proven already: only the time loop carries conflicts */
    int depth = isl_schedule_node_get_schedule_depth(band);
    for (int k = 0; k < n; k++) parallel[k] = depth + k > 0;
    return 0;
  }
  isl_union_map *prefix = isl_schedule_node_get_prefix_schedule_union_map(band);
  gather g = {m,
              isl_union_map_flat_range_product(
                  prefix, isl_schedule_node_band_get_partial_schedule_union_map(band)),
              NULL, 0};
  isl_union_set *domain = isl_schedule_node_get_domain(band);
  int rc = g.sched && domain ? gather_parts(&g, domain) : -1;
  isl_union_set_free(domain);
  isl_union_map_free(g.sched);
  int live = n;
  for (int k = 0; k < n; k++) parallel[k] = 1;
  for (int d = 0; d < g.n && live && !rc; d++)
    for (int i = 0; i + d < g.n && live && !rc; i++)
      rc = narrow_pair(&g.parts[i], &g.parts[i + d], red, nred, n, parallel, &live);
  gather_free(&g);
  return rc;
}

int sj_band_parallel(const sj_model *m, __isl_keep isl_schedule_node *band, int *parallel) {
  return sj_band_parallel_reduced(m, band, NULL, 0, parallel);
}

int sj_aff_row(__isl_keep isl_aff *aff, int ncoords, long *row) {
  if (!aff || isl_aff_dim(aff, isl_dim_div) != 0) return -1;
  isl_val *den = isl_aff_get_denominator_val(aff);
  int whole = isl_val_is_one(den) == isl_bool_true;
  isl_val_free(den);
  if (!whole) return -1;
  isl_val *c = isl_aff_get_constant_val(aff);
  row[0] = isl_val_get_num_si(c);
  isl_val_free(c);
  for (int k = 0; k < ncoords; k++) {
    c = isl_aff_get_coefficient_val(aff, isl_dim_in, k);
    row[1 + k] = isl_val_get_num_si(c);
    isl_val_free(c);
  }
  return 0;
}

int sj_set_dim_range(__isl_keep isl_set *set, int pos, long *lo, long *hi) {
  if (isl_set_is_empty(set) == isl_bool_true) {
    *lo = 0, *hi = -1;
    return 0;
  }
  isl_aff *x =
      isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(set)), isl_dim_set, pos);
  isl_val *a = isl_set_min_val(set, x), *b = isl_set_max_val(set, x);
  int rc = isl_val_is_int(a) && isl_val_is_int(b) ? 0 : -1;
  if (!rc) *lo = isl_val_get_num_si(a), *hi = isl_val_get_num_si(b);
  isl_val_free(a);
  isl_val_free(b);
  isl_aff_free(x);
  return rc;
}

__isl_give isl_set *sj_steps_of(__isl_keep isl_set *domain) {
  isl_size dims = isl_set_dim(domain, isl_dim_set);
  if (dims < 1) return NULL;
  return isl_set_reset_tuple_id(
      isl_set_project_out(isl_set_copy(domain), isl_dim_set, 1, (unsigned)dims - 1));
}

int sj_member_range(__isl_keep isl_schedule_node *band, int member, long *lo, long *hi) {
  isl_union_set *dom = isl_schedule_node_get_domain(band);
  isl_multi_union_pw_aff *partial = isl_schedule_node_band_get_partial_schedule(band);
  isl_union_map *m =
      isl_union_map_from_union_pw_aff(isl_multi_union_pw_aff_get_union_pw_aff(partial, member));
  isl_multi_union_pw_aff_free(partial);
  isl_union_set *vals = isl_union_set_apply(dom, m);
  if (isl_union_set_is_empty(vals) == isl_bool_true) {
    isl_union_set_free(vals);
    *lo = 0, *hi = -1;
    return 0;
  }
  isl_set *set = isl_set_from_union_set(vals);
  int rc = sj_set_dim_range(set, 0, lo, hi);
  isl_set_free(set);
  return rc;
}
