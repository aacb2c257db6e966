/* A function body that is not in stencil form as a whole but holds a time loop among other
 * top-level statements (an initialization, a copy before it; a norm, a copy-back after it):
 * each time loop in stencil form is scheduled by itself, so that it may be time-tiled, and the
 * runs of other parts between them together. The parts run one after another in C order, so every
 * dependence between parts goes forward, and each part's own schedule respects its own. */
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/schedule.h>

#include "base/buf.h"
#include "stenciljit.h"

/* Lines first..last of parts first..first+n-1 into b. */
static void part_lines(const sj_model *m, int first, int n, sj_buf *b) {
  const sj_pstmt *a = m->stmts[m->part_first[first]];
  const sj_pstmt *z = m->stmts[m->part_first[first + n] - 1];
  int lo = a->body[0]->loc.line, hi = z->body[z->nbody - 1]->loc.line;
  if (hi > lo)
    sj_buf_printf(b, "lines %d-%d", lo, hi);
  else
    sj_buf_printf(b, "line %d", lo);
}

/* Whether p is a time loop: a stencil that reads an array it writes. A nest of parallel loops
 * that does not (matmul's initialization, a copy) is in stencil form too, its outer loop as
 * time, but tiling it gains nothing, even where a tiling is forced. Arrays, not elements: a
 * time loop of one step may read no element it writes. */
static int time_loop(const sj_model *p, const sj_stencil *st) {
  if (!st->is_stencil) return 0;
  for (int w = 0; w < p->naccesses; w++)
    for (int r = 0; p->accesses[w].is_write && r < p->naccesses; r++)
      if (!p->accesses[r].is_write && p->accesses[r].ref->sym == p->accesses[w].ref->sym) return 1;
  return 0;
}

/* Schedules parts first..first+n-1 as one model into plan (untiled, or time-tiled where that
 * pays), and heads its explanation in b: 0, -1 when time tiling is asked and the part is no
 * time loop, or a jit_status. */
static int schedule_run(sj_model *m, int first, int n, sj_part_scheduler fn, void *user,
                        int untiled, sj_plan *plan, sj_buf *b, sj_error *err) {
  memset(plan, 0, sizeof *plan);
  sj_model *p = sj_model_part(m, first, n);
  if (!p) return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  sj_stencil st;
  sj_stencil_recognize(p, &st);
  int rc = untiled || time_loop(p, &st) ? fn(p, &st, untiled, user, plan, err) : -1;
  if (!rc) {
    sj_buf_puts(b, "part (");
    part_lines(m, first, n, b);
    sj_buf_printf(b, "): %s\n%s", st.why ? st.why : "", plan->explain ? plan->explain : "");
  }
  sj_stencil_clear(&st);
  sj_model_free(p);
  return rc;
}

/* Appends run's schedule and what it decided to all (run is left empty). */
static int append(sj_plan *all, sj_plan *run) {
  all->schedule =
      all->schedule ? isl_schedule_sequence(all->schedule, run->schedule) : run->schedule;
  run->schedule = NULL;
  if (run->nthreads > all->nthreads) all->nthreads = run->nthreads;
  all->nkernels += run->nkernels;
  all->time_tiled |= run->time_tiled;
  for (int i = 0; i < run->ntiles; i++) sj_plan_add_tile(all, run->tile[i]);
  sj_plan_clear(run);
  return all->schedule ? 0 : -1;
}

/* text into b, each line "  kernel K: ..." as kernel K + first: a part numbers its kernels
 * from 0, the whole from the parts before it. */
static void renumbered(sj_buf *b, const char *text, int first) {
  static const char head[] = "  kernel ";
  for (const char *at = text; at && *at;) {
    const char *end = strchr(at, '\n');
    size_t len = end ? (size_t)(end - at + 1) : strlen(at);
    char *rest;
    long k = strncmp(at, head, sizeof head - 1) ? -1 : strtol(at + sizeof head - 1, &rest, 10);
    if (k >= 0 && *rest == ':')
      sj_buf_printf(b, "%s%ld%.*s", head, k + first, (int)(at + len - rest), rest);
    else
      sj_buf_printf(b, "%.*s", (int)len, at);
    at += len;
  }
}

/* The parts one after another into all: each time-tiled one as it is, each run of others
 * between them untiled (a lone part as its own scheduling left it). */
static int sequence_parts(sj_model *m, sj_plan *own, sj_buf *why, sj_part_scheduler fn, void *user,
                          sj_plan *all, sj_buf *explain, sj_error *err) {
  int n = m->nparts, rc = 0;
  for (int i = 0; i < n && !rc;) {
    int j = i;
    while (j < n && !own[j].time_tiled) j++;
    if (j == i || (j == i + 1 && own[i].schedule)) {
      renumbered(explain, why[i].data, all->nkernels);
      rc = append(all, &own[i++]);
    } else {
      for (int k = i; k < j; k++) /* the refusals of a forced tiling */
        if (why[k].data) sj_buf_puts(explain, why[k].data);
      sj_plan run;
      sj_buf text = {0};
      rc = schedule_run(m, i, j - i, fn, user, 1, &run, &text, err);
      renumbered(explain, text.data, all->nkernels);
      sj_buf_free(&text);
      if (!rc) rc = append(all, &run);
      i = j;
    }
  }
  return rc < 0 ? sj_error_set(err, JIT_ERR_INTERNAL, "isl failed on the parts' schedule") : rc;
}

int sj_schedule_parts(sj_model *m, sj_part_scheduler fn, void *user, int forced, sj_plan *plan,
                      sj_error *err) {
  int n = m->nparts;
  if (n < 2 || m->whole) return -1;
  sj_plan *own = calloc((size_t)n, sizeof *own);
  sj_buf *why = calloc((size_t)n, sizeof *why);
  if (!own || !why) {
    free(own);
    free(why);
    return sj_error_set(err, JIT_ERR_NOMEM, "out of memory");
  }
  /* each part by itself; a part that refuses a forced tiling runs untiled where another part
   * is time-tiled, and its refusal is the answer where none is */
  sj_error refused = {0, ""};
  int rc = 0, any = 0, time_loops = 0;
  for (int i = 0; i < n && rc != JIT_ERR_NOMEM; i++) {
    sj_error mine = {0, ""};
    rc = schedule_run(m, i, 1, fn, user, 0, &own[i], &why[i], &mine);
    any |= rc == 0 && own[i].time_tiled;
    time_loops += rc == 0;
    if (rc > 0 && !refused.status) refused = mine;
    if (rc > 0) {
      sj_buf_puts(&why[i], "part (");
      part_lines(m, i, 1, &why[i]);
      sj_buf_printf(&why[i], ") runs untiled: %s\n", mine.msg);
    }
  }
  /* forced, with nothing to tile (a time loop of no steps): the whole would be refused */
  any |= forced && time_loops && !refused.status;
  sj_plan all;
  memset(&all, 0, sizeof all);
  sj_buf explain = {0};
  if (any) {
    sj_buf_puts(&explain, "in parts, one after another (the function body's top-level "
                          "statements; each part reads what the parts before it wrote from "
                          "memory):\n");
    rc = sequence_parts(m, own, why, fn, user, &all, &explain, err);
  } else {
    rc = refused.status ? (*err = refused).status : -1;
  }
  for (int i = 0; i < n; i++) {
    sj_plan_clear(&own[i]);
    sj_buf_free(&why[i]);
  }
  free(own);
  free(why);
  if (rc) {
    sj_plan_clear(&all);
    sj_buf_free(&explain);
    return rc;
  }
  all.explain = sj_buf_take(&explain);
  *plan = all;
  return 0;
}
