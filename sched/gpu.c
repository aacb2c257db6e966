/* The untiled GPU schedule of a kernel: which tree is mapped. A kernel in stencil form keeps the
 * order of the C function (one time step per launch: every space loop is parallel, which
 * nothing but time tiling improves), unless its dependences join only instances of the
 * same space point (a matrix product accumulated with k outermost): then the time loop can
 * go inside. Those and the other nests are also scheduled by isl's scheduler
 * (sched/reorder.c); every tree is mapped and the one whose kernels the time model of
 * sched/baseline.c finds fastest is kept, the C order on a tie. */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* Whether every conflict of the model joins instances that the C order maps to the same
 * point below the time loop (only the time loop separates them). */
static isl_bool pointwise(sj_model *m) {
  if (m->nstmts > SJ_REORDER_MAX_STMTS) return isl_bool_false;
  isl_union_map *order = isl_schedule_get_map(m->original);
  isl_union_map *c = sj_model_conflicts(m, m->domain);
  c = isl_union_map_apply_domain(c, isl_union_map_copy(order));
  c = isl_union_map_apply_range(c, order);
  isl_union_set *deltas = isl_union_map_deltas(c);
  isl_bool same = isl_bool_true;
  isl_size n = isl_union_set_n_set(deltas);
  if (n < 0 || n > 1) same = n < 0 ? isl_bool_error : isl_bool_false;
  if (same == isl_bool_true && n == 1) {
    isl_set *d = isl_set_from_union_set(isl_union_set_copy(deltas));
    int dims = (int)isl_set_dim(d, isl_dim_set);
    isl_set *zero = isl_set_universe(isl_set_get_space(d));
    for (int k = 1; k < dims; k++) zero = isl_set_fix_si(zero, isl_dim_set, k, 0);
    same = isl_set_is_subset(d, zero);
    isl_set_free(d);
    isl_set_free(zero);
  }
  isl_union_set_free(deltas);
  return same;
}

/* Appends the reductions found to the explanation: in exact mode kept in order; with
 * reassociation allowed, the kernels whose line says so run them in parallel. */
static void explain_reductions(const sj_model *m, sj_buf *why) {
  sj_buf list = {0};
  if (sj_reductions_explain(m, &list) == 0 && list.len)
    sj_buf_printf(why,
                  m->reassociate ? "  reductions (reassociation allowed: in parallel where a "
                                   "kernel line says so, else in the C order): %s\n"
                                 : "  reductions kept in the C order (not reassociated): %s\n",
                  list.data);
  sj_buf_free(&list);
}

int sj_schedule_untiled(sj_model *m, const unsigned max_grid[3], sj_plan *plan, sj_error *err) {
  sj_buf why = {0};
  double cost;
  int rc = sj_map_gpu(m, isl_schedule_copy(m->original), 0, max_grid, plan, &cost, err);
  if (rc) return rc;
  if ((m->stencil && pointwise(m) != isl_bool_true) || !m->nstmts) {
    sj_buf_printf(&why,
                  "GPU schedule: the C order%s (one launch per kernel and host "
                  "iteration):\n%s",
                  m->stencil ? ", per time step (stencil form: every space loop is parallel)" : "",
                  plan->explain);
    explain_reductions(m, &why);
    free(plan->explain);
    plan->explain = sj_buf_take(&why);
    return 0;
  }
  sj_buf note = {0}, tried = {0};
  isl_schedule *cand[SJ_REORDER_MAX];
  char *label[SJ_REORDER_MAX];
  int n = sj_schedule_reorder(m, cand, label, &note), best = -1;
  sj_buf_printf(&tried, "the C order %.3g", cost);
  for (int i = 0; i < n; i++) {
    sj_plan other;
    sj_error other_err = {0, {0}};
    double other_cost;
    /* a tree of isl's that cannot be mapped is no reason to fail the compile */
    if (sj_map_gpu(m, cand[i], 1, max_grid, &other, &other_cost, &other_err)) {
      sj_buf_printf(&tried, ", isl's (%s) not mapped: %s", label[i], other_err.msg);
      continue;
    }
    sj_buf_printf(&tried, ", isl's (%s) %.3g", label[i], other_cost);
    if (other_cost < cost) {
      sj_plan swap = *plan;
      *plan = other;
      other = swap;
      cost = other_cost;
      best = i;
    }
    sj_plan_clear(&other);
  }
  if (best >= 0)
    sj_buf_printf(&why, "GPU schedule: isl's (%s)", label[best]);
  else
    sj_buf_printf(&why, "GPU schedule: the C order");
  sj_buf_printf(&why, " (modeled times: %s%s%s; one launch per kernel and host iteration):\n%s",
                tried.data, note.len ? "; " : "", note.len ? note.data : "", plan->explain);
  explain_reductions(m, &why);
  for (int i = 0; i < n; i++) free(label[i]);
  sj_buf_free(&note);
  sj_buf_free(&tried);
  free(plan->explain);
  plan->explain = sj_buf_take(&why);
  return 0;
}
