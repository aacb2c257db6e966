/* The GPU schedule of a kernel: which tree is mapped. A kernel in stencil form keeps the
 * order of the C function (one time step per launch: every space loop is parallel, which
 * nothing but time tiling improves). Other nests are also scheduled by isl's scheduler
 * (sched/reorder.c); every tree is mapped and the one whose kernels the time model of
 * sched/baseline.c finds fastest is kept, the C order on a tie. */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

int sj_schedule_gpu(sj_model *m, const unsigned max_grid[3], sj_plan *plan, sj_error *err) {
  sj_buf why = {0};
  double cost;
  int rc = sj_map_gpu(m, isl_schedule_copy(m->original), 0, max_grid, plan, &cost, err);
  if (rc) return rc;
  if (m->stencil || !m->nstmts) {
    sj_buf_printf(&why,
                  "GPU schedule: the C order%s (one launch per kernel and host "
                  "iteration):\n%s",
                  m->stencil ? ", per time step (stencil form: every space loop is parallel)" : "",
                  plan->explain);
    free(plan->explain);
    plan->explain = sj_buf_take(&why);
    return 0;
  }
  sj_buf note = {0}, tried = {0};
  isl_schedule *cand[SJ_REORDER_MAX];
  const char *label[SJ_REORDER_MAX], *chosen = "the C order";
  int n = sj_schedule_reorder(m, cand, label, &note);
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
      chosen = label[i];
    }
    sj_plan_clear(&other);
  }
  sj_buf_printf(&why,
                "GPU schedule: %s%s%s (modeled times: %s; %s; one launch per kernel and host "
                "iteration):\n%s",
                strcmp(chosen, "the C order") ? "isl's (" : "", chosen,
                strcmp(chosen, "the C order") ? ")" : "", tried.data, note.data ? note.data : "",
                plan->explain);
  sj_buf_free(&note);
  sj_buf_free(&tried);
  free(plan->explain);
  plan->explain = sj_buf_take(&why);
  return 0;
}
