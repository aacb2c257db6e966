/* The choice of a GPU schedule: the per-step mapping (sched/gpu.c), hybrid or split time tiling
 * (sched/hybrid.c), by the modeled time of each (sched/tile_model.h) with the sizes the model
 * finds best for the tilings; JIT_TILING forces one, JIT_TILE the sizes. */
#include "sched/tile_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/union_set.h>

#include "stenciljit.h"

static const char *const tiling_names[] = {"hybrid hexagonal/parallelogram", "split"};

/* What the choice weighed: the per-step mapping and the best sizes of each tiling. */
typedef struct weighed {
  sj_tm_stencil input;
  sj_tm_cost per_step;
  int nbest[SJ_TM_KINDS];
  sj_tm_cost best[SJ_TM_KINDS][SJ_TM_TOP];
} weighed;

/* The model's candidates for the explanation, fastest of each kind first. */
static void list_candidates(sj_buf *b, const weighed *w) {
  for (int k = SJ_TM_PER_STEP; k < SJ_TM_KINDS; k++) {
    const sj_tm_cost *c = k == SJ_TM_PER_STEP ? &w->per_step : w->best[k];
    int n = k == SJ_TM_PER_STEP ? 1 : w->nbest[k] ? w->nbest[k] : 1;
    for (int i = 0; i < n; i++) {
      sj_buf_puts(b, "    ");
      sj_tm_describe(b, &c[i]);
      sj_buf_puts(b, "\n");
    }
  }
}

/* Why the winner won, and the candidates, as the explanation's first lines. */
static void explain_choice(sj_buf *b, const weighed *w, sj_tm_kind chosen, sj_tiling tiling,
                           const sj_gpu_device *dev) {
  sj_buf_printf(b,
                "tile model (%d multiprocessors, %.0f GB/s, %ld KB L2, %ld KB shared per block): ",
                dev->sms, dev->dram_bw / 1e9, dev->l2_bytes >> 10, dev->shared_per_block >> 10);
  double ps = w->per_step.time * 1e3;
  if (tiling != SJ_TILING_AUTO) {
    sj_buf_printf(b, "%s forced by JIT_TILING", sj_tm_kind_names[chosen]);
  } else if (chosen != SJ_TM_PER_STEP) {
    sj_buf_printf(b, "%s tiles, modeled %.3f ms against %.3f ms per step", sj_tm_kind_names[chosen],
                  w->best[chosen][0].time * 1e3, ps);
  } else {
    sj_buf_printf(b, "the per-step mapping, modeled %.3f ms", ps);
    for (int k = SJ_TM_HYBRID; k < SJ_TM_KINDS; k++)
      if (w->nbest[k])
        sj_buf_printf(b, "; %s tiles %.3f ms", sj_tm_kind_names[k], w->best[k][0].time * 1e3);
      else
        sj_buf_printf(b, "; no %s tiles (%s)", sj_tm_kind_names[k], w->best[k][0].why);
  }
  if (tiling == SJ_TILING_AUTO)
    sj_buf_printf(b, " (a tiling wins at %.1fx the per-step time or less, and %.0f ms less)",
                  SJ_TM_TILED_MARGIN, SJ_TM_TILED_SAVING * 1e3);
  sj_buf_puts(b, "; the candidates (modeled DRAM bytes and instructions per update, blocks with "
                 "work per launch and in the grid, threads, launches, shared memory, blocks per "
                 "multiprocessor, time; 2 or more blocks per multiprocessor first):\n");
  list_candidates(b, w);
}

/* Whether every dependence joins instances of one space point (a zero cone). */
static int pointwise(const sj_cone *c) {
  int zero = !c->up_num && !c->down_num;
  for (int d = 1; d <= c->n; d++) zero &= !c->skew_num[d] && !c->lead_num[d];
  return zero;
}

/* Which mapping: the forced one, or the fastest modeled (a tiling by SJ_TM_TILED_MARGIN). */
static sj_tm_kind choose(const weighed *w, sj_tiling tiling) {
  if (tiling == SJ_TILING_HYBRID) return SJ_TM_HYBRID;
  if (tiling == SJ_TILING_SPLIT) return SJ_TM_SPLIT;
  sj_tm_kind best = SJ_TM_PER_STEP;
  double ps = w->per_step.time;
  double limit =
      tiling == SJ_TILING_TIME ? 1e300 : fmin(ps * SJ_TM_TILED_MARGIN, ps - SJ_TM_TILED_SAVING);
  for (int k = SJ_TM_HYBRID; k < SJ_TM_KINDS; k++)
    if (w->nbest[k] && w->best[k][0].time < limit) best = k, limit = w->best[k][0].time;
  return best;
}

/* The refusal of a forced tiling that is illegal for the kernel. */
static int refuse(const sj_model *m, sj_tiling tiling, const char *why, sj_error *err) {
  static const char *const names[] = {"", "time", "", "hybrid", "split"};
  return sj_error_at(err, JIT_ERR_UNSUPPORTED, m->source_name, m->fn->loc,
                     "JIT_TILING=%s: time tiling does not apply to '%s': %s", names[tiling],
                     m->fn->name, why);
}

/* The untiled schedule with note above its explanation. */
static int untiled(sj_model *m, const sj_stencil *st, const sj_gpu_device *dev, sj_buf *note,
                   sj_plan *plan, sj_error *err) {
  int rc = sj_schedule_untiled(m, st, dev->max_grid, plan, err);
  if (rc == 0 && note->len) {
    sj_buf_puts(note, plan->explain);
    free(plan->explain);
    plan->explain = sj_buf_take(note);
  }
  sj_buf_free(note);
  return rc;
}

/* The best sizes of each tiling for w->input. */
static void search_tilings(weighed *w, const sj_tile_spec *spec, const sj_gpu_device *dev,
                           const sj_buf *why) {
  for (int k = SJ_TM_HYBRID; k < SJ_TM_KINDS; k++) {
    w->nbest[k] = sj_tm_search(&w->input, k, sj_time_tiles_staged(), spec, dev, w->best[k]);
    if (!w->input.tileable)
      snprintf(w->best[k][0].why, sizeof w->best[k][0].why, "%s", why->data ? why->data : "");
  }
}

/* Weighs the mappings of st (with the exact cone when exact is set): 0; -1 with why when the
 * tilings do not apply; a jit_status. */
static int weigh(sj_model *m, const sj_stencil *st, const sj_tile_spec *spec,
                 const sj_gpu_device *dev, int exact, weighed *w, sj_buf *why, sj_error *err) {
  memset(w, 0, sizeof *w);
  int rc = sj_tm_read(m, st, exact, &w->input, why, err);
  if (rc) return rc;
  sj_tm_search(&w->input, SJ_TM_PER_STEP, 0, NULL, dev, &w->per_step);
  if (!exact && w->input.tileable && w->per_step.time <= SJ_TM_TILED_SAVING) {
    /* a tiling must save SJ_TM_TILED_SAVING of a run that takes less: none can win */
    for (int k = SJ_TM_HYBRID; k < SJ_TM_KINDS; k++) {
      w->best[k][0].c.kind = (sj_tm_kind)k;
      snprintf(w->best[k][0].why, sizeof w->best[k][0].why,
               "not searched: the per-step run is modeled at %.3f ms, less than the %.0f ms a "
               "tiling must save",
               w->per_step.time * 1e3, SJ_TM_TILED_SAVING * 1e3);
    }
    return 0;
  }
  search_tilings(w, spec, dev, why);
  return w->input.tileable ? 0 : -1;
}

/* Whether isl refused one of the tiling's operations (a case the tiling's code does not
 * expect, so no tiled schedule built on it is trusted): the error is cleared and why says so,
 * and the caller's kernel runs untiled. The tests (JIT_CHECK_TILES) keep the error, which fails
 * the compile: for them it is a defect to show. Running out of budget or memory is not this. */
static int isl_refused(isl_ctx *ctx, enum isl_error before, sj_buf *why) {
  enum isl_error e = isl_ctx_last_error(ctx);
  if (before != isl_error_none || e == isl_error_none || e == isl_error_quota ||
      e == isl_error_alloc || getenv("JIT_CHECK_TILES"))
    return 0;
  sj_buf_free(why);
  sj_buf_printf(why, "isl refused an operation of the tiling (error %d)", (int)e);
  isl_ctx_reset_error(ctx);
  return 1;
}

/* The time-tiled schedule with the best sizes of kind into plan, note above its explanation. A
 * forced tiling that does not apply is refused; otherwise the untiled schedule runs. */
static int tiled(sj_model *m, const sj_stencil *st, const sj_tm_cost *best, sj_tiling tiling,
                 const sj_gpu_device *dev, sj_buf *note, sj_plan *plan, sj_error *err) {
  sj_time_tiles sizes = {
      best->c.kind == SJ_TM_SPLIT, best->c.h, {0, 0, 0}, {0, 0, 0}, best->budget};
  memcpy(sizes.w, best->c.w, sizeof sizes.w);
  memcpy(sizes.block, best->c.block, sizeof sizes.block);
  memset(plan, 0, sizeof *plan);
  sj_buf tiles = {0};
  isl_ctx *ctx = isl_union_set_get_ctx(m->domain);
  enum isl_error before = isl_ctx_last_error(ctx);
  int rc = sj_schedule_time_tiled(m, st, &sizes, dev->max_grid, plan, &tiles, err);
  if (rc <= 0 && isl_refused(ctx, before, &tiles)) rc = -1;
  if (rc == 0) {
    plan->nthreads = 1;
    plan->time_tiled = 1;
    sj_buf_printf(note, "GPU schedule: %s time tiling:\n%s", tiling_names[sizes.split], tiles.data);
    plan->explain = sj_buf_take(note);
  } else {
    sj_plan_clear(plan);
    if (rc < 0 && tiling != SJ_TILING_AUTO) {
      rc = refuse(m, tiling, tiles.data, err);
    } else if (rc < 0) {
      sj_buf_printf(note, "%s time tiling does not apply: %s\n", tiling_names[sizes.split],
                    tiles.data);
      rc = untiled(m, st, dev, note, plan, err);
    }
  }
  sj_buf_free(&tiles);
  sj_buf_free(note);
  return rc;
}

int sj_schedule_gpu(sj_model *m, const sj_stencil *st, sj_tiling tiling, const char *tile,
                    const sj_gpu_device *dev, sj_plan *plan, sj_error *err) {
  sj_buf note = {0}, why = {0};
  sj_tile_spec spec;
  char bad[8];
  int sized = tile && !sj_tile_spec_parse(tile, &spec, bad, sizeof bad); /* checked by the API */
  const sj_tile_spec *sizes = sized ? &spec : NULL;
  int forced = tiling != SJ_TILING_AUTO;
  if (tiling == SJ_TILING_NONE || (sized && spec.off)) {
    sj_buf_printf(&note, "time tiling off (%s)\n",
                  sized && spec.off ? "JIT_TILE=none" : "JIT_TILING");
    return untiled(m, st, dev, &note, plan, err);
  }
  if (!st->is_stencil) {
    if (forced) return refuse(m, tiling, st->why ? st->why : "not in stencil form", err);
    return untiled(m, st, dev, &note, plan, err);
  }
  if (isl_union_set_is_empty(m->domain) != isl_bool_false) {
    sj_buf_puts(&note, "time tiling not used: no statement instances\n");
    return untiled(m, st, dev, &note, plan, err);
  }
  weighed w;
  int rc = weigh(m, st, sizes, dev, forced, &w, &why, err);
  if (rc == 0 && sized && spec.nw > w.input.n + 1) { /* fewer: the others are searched */
    sj_buf_free(&why);
    char what[128];
    snprintf(what, sizeof what,
             "the tile sizes '%s' give %d widths; %s'%s' has %d space dimension%s", tile, spec.nw,
             m->whole ? "this part of " : "", m->fn->name, w.input.n + 1, w.input.n ? "s" : "");
    if (!m->whole) return sj_error_at(err, JIT_ERR_ARGS, m->source_name, m->fn->loc, "%s", what);
    /* a part (sched/parts.c): the sizes may be another part's */
    if (forced) return refuse(m, tiling, what, err);
    sj_buf_printf(&note, "time tiling not used: %s\n", what);
    return untiled(m, st, dev, &note, plan, err);
  }
  if (rc == 0 && !forced && pointwise(&w.input.cone)) {
    sj_buf_puts(&note, "time tiling not needed: every dependence stays at one space point, so "
                       "the untiled schedule may run the time loop inside the kernel\n");
    return untiled(m, st, dev, &note, plan, err);
  }
  sj_tm_kind kind = rc ? SJ_TM_PER_STEP : choose(&w, tiling);
  /* weighed with a bound of the cone: the exact one decides a tiling */
  if (kind != SJ_TM_PER_STEP && !w.input.exact_cone) {
    rc = sj_tm_exact_cone(m, st, &w.input, &why) ? 0 : -1;
    search_tilings(&w, sizes, dev, &why);
    kind = rc ? SJ_TM_PER_STEP : choose(&w, tiling);
  }
  if (rc > 0) {
    sj_buf_free(&why);
    return rc;
  }
  if (rc < 0 || (kind == SJ_TM_PER_STEP && forced)) { /* forced: illegal, or no size fits */
    const char *reason = rc == 0 ? w.best[SJ_TM_HYBRID][0].why : why.data ? why.data : "no cone";
    if (forced)
      rc = refuse(m, tiling, reason, err);
    else
      sj_buf_printf(&note, "time tiling does not apply: %s\n", reason);
    sj_buf_free(&why);
    return forced ? rc : untiled(m, st, dev, &note, plan, err);
  }
  sj_buf_free(&why);
  explain_choice(&note, &w, kind, tiling, dev);
  if (kind == SJ_TM_PER_STEP) return untiled(m, st, dev, &note, plan, err);
  if (!w.nbest[kind]) { /* a forced kind no size fits */
    sj_buf_free(&note);
    return refuse(m, tiling, w.best[kind][0].why, err);
  }
  return tiled(m, st, &w.best[kind][0], tiling, dev, &note, plan, err);
}
