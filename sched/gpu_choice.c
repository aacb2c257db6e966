/* The choice of a GPU schedule: untiled (sched/gpu.c) or time tiling, hybrid or split
 * (sched/hybrid.c). */
#include "sched/hybrid.h"

#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"

static const char *const tiling_names[] = {"hybrid hexagonal/parallelogram", "split"};

/* Time tiling into plan: 0; -1 with why filled when it does not apply; a jit_status. */
static int try_tiling(sj_model *m, const sj_stencil *st, int split, const char *tile,
                      const unsigned max_grid[3], sj_plan *plan, sj_buf *why, sj_error *err) {
  sj_buf tiles = {0};
  memset(plan, 0, sizeof *plan);
  int rc = sj_schedule_time_tiled(m, st, split, tile, max_grid, plan, &tiles, err);
  if (rc == 0) {
    plan->nthreads = 1;
    sj_buf_printf(why, "GPU schedule: %s time tiling:\n%s", tiling_names[split], tiles.data);
    plan->explain = sj_buf_take(why);
  } else {
    sj_plan_clear(plan);
    if (rc < 0)
      sj_buf_printf(why, "%s time tiling does not apply: %s\n", tiling_names[split], tiles.data);
  }
  sj_buf_free(&tiles);
  return rc;
}

int sj_schedule_gpu(sj_model *m, const sj_stencil *st, sj_tiling tiling, const char *tile,
                    const unsigned max_grid[3], sj_plan *plan, sj_error *err) {
  sj_buf why = {0};
  if (tile && strcmp(tile, "none") == 0) tiling = SJ_TILING_NONE;
  if (tiling == SJ_TILING_TIME || tiling == SJ_TILING_HYBRID || tiling == SJ_TILING_SPLIT) {
    int rc = try_tiling(m, st, tiling == SJ_TILING_SPLIT, tile, max_grid, plan, &why, err);
    if (rc >= 0) { /* tiled, or failed */
      sj_buf_free(&why);
      return rc;
    }
  } else if (st->is_stencil && tiling == SJ_TILING_AUTO)
    sj_buf_puts(&why, "time tiling not chosen: without shared-memory staging hybrid tiling does "
                      "not beat the per-step mapping on an H100 (JIT_TILING=hybrid or split "
                      "forces it)\n");
  int rc = sj_schedule_untiled(m, max_grid, plan, err);
  if (rc == 0 && why.len) {
    sj_buf_puts(&why, plan->explain);
    free(plan->explain);
    plan->explain = sj_buf_take(&why);
  }
  sj_buf_free(&why);
  return rc;
}
