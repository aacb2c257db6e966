/* Dependences. Scheduling needs only to know which instance pairs must keep their order:
 * the memory-based relations (same element, one writes, first before second), which are
 * cheap compositions of the accesses with the order of the original schedule. The exact
 * value-based relations come from isl's access-info API, which costs ten times more, so
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

/* x -> y where x accesses an element of from, y the same element of to, x before y. */
static __isl_give isl_union_map *conflicts(__isl_keep isl_union_map *from,
                                           __isl_keep isl_union_map *to,
                                           __isl_keep isl_union_map *before) {
  isl_union_map *same = isl_union_map_apply_range(isl_union_map_copy(from),
                                                  isl_union_map_reverse(isl_union_map_copy(to)));
  return isl_union_map_intersect(same, isl_union_map_copy(before));
}

int sj_model_dependences(sj_model *m, sj_error *err) {
  isl_union_map *order = isl_schedule_get_map(m->original);
  isl_union_map *before = isl_union_map_lex_lt_union_map(isl_union_map_copy(order), order);
  isl_union_map *deps = conflicts(m->writes, m->reads, before);
  deps = isl_union_map_union(deps, conflicts(m->reads, m->writes, before));
  deps = isl_union_map_union(deps, conflicts(m->writes, m->writes, before));
  isl_union_map_free(before);
  m->deps = deps;
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

/* Pairs of instances with the same value of sched: x -> y with sched(x) == sched(y). */
static __isl_give isl_union_map *same(__isl_take isl_union_map *sched) {
  isl_union_map *copy = isl_union_map_copy(sched); /* before reverse consumes sched */
  return isl_union_map_apply_range(copy, isl_union_map_reverse(sched));
}

__isl_give isl_union_map *sj_live_deps(__isl_keep isl_union_map *deps,
                                       __isl_keep isl_schedule_node *band, int member) {
  isl_union_map *prefix = isl_schedule_node_get_prefix_schedule_union_map(band);
  if (member > 0) {
    isl_multi_union_pw_aff *p = isl_schedule_node_band_get_partial_schedule(band);
    p = isl_multi_union_pw_aff_drop_dims(p, isl_dim_set, member,
                                         isl_multi_union_pw_aff_dim(p, isl_dim_set) - member);
    prefix = isl_union_map_flat_range_product(prefix, isl_union_map_from_multi_union_pw_aff(p));
  }
  return isl_union_map_intersect(isl_union_map_copy(deps), same(prefix));
}

int sj_member_is_parallel(__isl_keep isl_union_map *deps, __isl_keep isl_schedule_node *band,
                          int member) {
  isl_union_map *live = sj_live_deps(deps, band, member);
  isl_multi_union_pw_aff *partial = isl_schedule_node_band_get_partial_schedule(band);
  isl_union_map *m =
      isl_union_map_from_union_pw_aff(isl_multi_union_pw_aff_get_union_pw_aff(partial, member));
  isl_multi_union_pw_aff_free(partial);
  /* x -> y becomes m(x) -> m(y); parallel when every such pair is equal */
  live = isl_union_map_apply_domain(live, isl_union_map_copy(m));
  live = isl_union_map_apply_range(live, m);
  isl_union_set *delta = isl_union_map_deltas(live);
  isl_bool ok = isl_bool_true;
  if (!isl_union_set_is_empty(delta)) {
    isl_set *d = isl_set_from_union_set(delta);
    isl_set *zero = isl_set_universe(isl_set_get_space(d));
    zero = isl_set_fix_si(zero, isl_dim_set, 0, 0);
    ok = isl_set_is_subset(d, zero);
    isl_set_free(d);
    isl_set_free(zero);
  } else {
    isl_union_set_free(delta);
  }
  return ok < 0 ? -1 : ok == isl_bool_true;
}

int sj_set_dim_range(__isl_keep isl_set *set, int pos, long *lo, long *hi) {
  if (isl_set_is_empty(set) == isl_bool_true) {
    *lo = 0, *hi = -1;
    return 0;
  }
  isl_aff *x = isl_aff_var_on_domain(isl_local_space_from_space(isl_set_get_space(set)),
                                     isl_dim_set, pos);
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
