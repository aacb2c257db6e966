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
#include <isl/val.h>

#include "stenciljit.h"

/* x -> y where x accesses an element of from and y the same element of to. */
static __isl_give isl_union_map *conflicts(__isl_keep isl_union_map *from,
                                           __isl_keep isl_union_map *to) {
  return isl_union_map_apply_range(isl_union_map_copy(from),
                                   isl_union_map_reverse(isl_union_map_copy(to)));
}

int sj_model_dependences(sj_model *m, sj_error *err) {
  /* write-read in both orders, and write-write */
  isl_union_map *deps = conflicts(m->writes, m->reads);
  deps = isl_union_map_union(deps, isl_union_map_reverse(isl_union_map_copy(deps)));
  m->deps = isl_union_map_union(deps, conflicts(m->writes, m->writes));
  if (!m->deps) return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed computing dependences");
  return 0;
}

static __isl_give isl_union_flow *flow(sj_model *m, __isl_keep isl_union_map *sink,
                                       __isl_keep isl_union_map *must,
                                       __isl_keep isl_union_map *may) {
  isl_union_access_info *ai = isl_union_access_info_from_sink(isl_union_map_copy(sink));
  ai = isl_union_access_info_set_must_source(ai, isl_union_map_copy(must));
  if (may) ai = isl_union_access_info_set_may_source(ai, isl_union_map_copy(may));
  ai = isl_union_access_info_set_schedule(ai, isl_schedule_copy(m->original));
  return isl_union_access_info_compute_flow(ai);
}

int sj_model_exact_dependences(sj_model *m, sj_error *err) {
  if (m->dep_flow) return 0;
  /* flow: the last write before each read */
  isl_union_flow *f = flow(m, m->reads, m->writes, NULL);
  m->dep_flow = isl_union_flow_get_must_dependence(f);
  isl_union_flow_free(f);
  /* output: the last write before each write */
  f = flow(m, m->writes, m->writes, NULL);
  m->dep_output = isl_union_flow_get_must_dependence(f);
  isl_union_flow_free(f);
  /* anti: the reads since the last write before each write */
  f = flow(m, m->writes, m->writes, m->reads);
  isl_union_map *may = isl_union_flow_get_may_dependence(f);
  isl_union_flow_free(f);
  m->dep_anti = isl_union_map_subtract(may, isl_union_map_copy(m->dep_output));
  if (!m->dep_flow || !m->dep_output || !m->dep_anti)
    return sj_error_set(err, JIT_ERR_INTERNAL, "isl failed computing exact dependences");
  return 0;
}

int sj_band_parallel(const sj_model *m, __isl_keep isl_schedule_node *band, int *parallel) {
  int n = isl_schedule_node_band_n_member(band);
  if (m->stencil) { /* proven already: only the time loop carries conflicts */
    int depth = isl_schedule_node_get_schedule_depth(band);
    for (int k = 0; k < n; k++) parallel[k] = depth + k > 0;
    return 0;
  }
  isl_union_map *deps = m->deps;
  isl_union_map *prefix = isl_schedule_node_get_prefix_schedule_union_map(band);
  int np = -1;
  isl_union_map *sched = isl_union_map_flat_range_product(
      prefix, isl_schedule_node_band_get_partial_schedule_union_map(band));
  isl_union_set *domain = isl_schedule_node_get_domain(band);
  isl_union_map *d =
      isl_union_map_intersect_domain(isl_union_map_copy(deps), isl_union_set_copy(domain));
  d = isl_union_map_intersect_range(d, domain);
  d = isl_union_map_apply_domain(d, isl_union_map_copy(sched));
  d = isl_union_map_apply_range(d, sched);
  isl_union_set *deltas = isl_union_map_deltas(d);
  if (!deltas) return -1;
  for (int k = 0; k < n; k++) parallel[k] = 1;
  if (isl_union_set_is_empty(deltas) == isl_bool_true) {
    isl_union_set_free(deltas);
    return 0;
  }
  isl_set *dist = isl_set_from_union_set(deltas);
  np = (int)isl_set_dim(dist, isl_dim_set) - n; /* the prefix's dimensions come first */
  /* Distances of the conflicts the band must respect: zero on the prefix. */
  for (int i = 0; i < np; i++) dist = isl_set_fix_si(dist, isl_dim_set, i, 0);
  int rc = 0;
  for (int k = 0; k < n && !rc; k++) {
    /* member k is parallel when no live distance is nonzero there */
    isl_set *nonzero =
        isl_set_union(isl_set_lower_bound_si(isl_set_copy(dist), isl_dim_set, np + k, 1),
                      isl_set_upper_bound_si(isl_set_copy(dist), isl_dim_set, np + k, -1));
    isl_bool empty = isl_set_is_empty(nonzero);
    isl_set_free(nonzero);
    if (empty < 0) rc = -1;
    parallel[k] = empty == isl_bool_true;
    /* conflicts separated here do not constrain the members after it */
    dist = isl_set_fix_si(dist, isl_dim_set, np + k, 0);
  }
  isl_set_free(dist);
  return rc;
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
