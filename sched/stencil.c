/* Recognition of the stencil form (seed digest 1, input form): an outer loop whose body is
 * k >= 1 nests; nest i of step t is folded to time k*t + i, and every dependence must go
 * forward in folded time, which also makes every loop of every nest parallel. Folded time
 * never decreases along the original order, so that holds exactly when no two different
 * instances of one folded time step conflict. */
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/space.h>
#include <isl/val.h>

#include "base/buf.h"

static int not_stencil(sj_stencil *out, sj_buf *why, const char *reason) {
  sj_buf_printf(why, "not in stencil form: %s", reason);
  out->why = sj_buf_take(why);
  return 0;
}

/* Nest index of every statement: the filters of a sequence below the time band. */
static int nest_of(sj_model *m, __isl_keep isl_schedule_node *time, int *nest) {
  for (int i = 0; i < m->nstmts; i++) nest[i] = 0;
  if (isl_schedule_node_band_n_member(time) > 1) return 1;
  isl_schedule_node *child = isl_schedule_node_get_child(time, 0);
  int k = 1;
  if (isl_schedule_node_get_type(child) == isl_schedule_node_sequence) {
    k = isl_schedule_node_n_children(child);
    for (int c = 0; c < k; c++) {
      isl_schedule_node *f = isl_schedule_node_get_child(child, c);
      isl_union_set *filter = isl_schedule_node_filter_get_filter(f);
      for (int i = 0; i < m->nstmts; i++) {
        isl_union_set *s = isl_union_set_from_set(isl_set_copy(m->stmts[i]->domain));
        s = isl_union_set_intersect(s, isl_union_set_copy(filter));
        if (isl_union_set_is_empty(s) == isl_bool_false) nest[i] = c;
        isl_union_set_free(s);
      }
      isl_union_set_free(filter);
      isl_schedule_node_free(f);
    }
  }
  isl_schedule_node_free(child);
  return k;
}

int sj_stencil_recognize(sj_model *m, sj_stencil *out) {
  sj_buf why = {0};
  memset(out, 0, sizeof *out);
  if (m->nstmts <= 0) return not_stencil(out, &why, "there are no statements");
  isl_schedule_node *root = isl_schedule_get_root(m->original);
  isl_schedule_node *time = isl_schedule_node_child(root, 0);
  if (isl_schedule_node_get_type(time) != isl_schedule_node_band) {
    isl_schedule_node_free(time);
    return not_stencil(out, &why, "the statements are not all inside one outer loop");
  }
  for (int i = 0; i < m->nstmts; i++)
    if (m->stmts[i]->depth < 2) {
      isl_schedule_node_free(time);
      return not_stencil(out, &why, "a statement has no space loop inside the outer loop");
    }
  size_t count = (size_t)(unsigned)m->nstmts;
  int *nest = calloc(count, sizeof *nest);
  int k = nest_of(m, time, nest);
  isl_multi_union_pw_aff *partial = isl_schedule_node_band_get_partial_schedule(time);
  isl_union_pw_aff *t = isl_multi_union_pw_aff_get_union_pw_aff(partial, 0);
  isl_multi_union_pw_aff_free(partial);
  isl_schedule_node_free(time);

  isl_union_map *folded = NULL;
  isl_ctx *ctx = m->ctx;
  for (int i = 0; i < m->nstmts; i++) {
    isl_space *space = isl_set_get_space(m->stmts[i]->domain);
    isl_pw_aff *pa = isl_union_pw_aff_extract_pw_aff(
        t, isl_space_map_from_domain_and_range(space, isl_space_set_alloc(ctx, 0, 1)));
    pa = isl_pw_aff_scale_val(pa, isl_val_int_from_si(ctx, k));
    pa = isl_pw_aff_add_constant_val(pa, isl_val_int_from_si(ctx, nest[i]));
    isl_union_map *f = isl_union_map_from_map(isl_map_from_pw_aff(pa));
    folded = folded ? isl_union_map_union(folded, f) : f;
  }
  isl_union_pw_aff_free(t);
  free(nest);

  /* conflicts between instances of one folded step, other than an instance with itself */
  isl_union_map *same_step = isl_union_map_apply_range(
      isl_union_map_copy(folded), isl_union_map_reverse(isl_union_map_copy(folded)));
  same_step = isl_union_map_intersect(same_step, isl_union_map_copy(m->deps));
  same_step =
      isl_union_map_subtract(same_step, isl_union_set_identity(isl_union_set_copy(m->domain)));
  isl_bool ok = isl_union_map_is_empty(same_step);
  isl_union_map_free(same_step);
  if (ok != isl_bool_true) {
    isl_union_map_free(folded);
    return not_stencil(out, &why,
                       "a dependence stays inside one time step of one nest, so the space "
                       "loops are not all parallel");
  }
  out->is_stencil = 1;
  m->stencil = 1;
  out->nests = k;
  out->time = m->stmts[0]->iters[0];
  out->folded = folded;
  sj_buf_printf(&why, "stencil form: loop '%s' carries every dependence over %d nest%s",
                out->time->name, k, k > 1 ? "s" : "");
  if (k > 1) {
    sj_buf_printf(&why, " folded into one time dimension (");
    for (int i = 0; i < m->nstmts; i++) {
      isl_union_set *s = isl_union_set_from_set(isl_set_copy(m->stmts[i]->domain));
      isl_union_map *f = isl_union_map_intersect_domain(isl_union_map_copy(folded), s);
      char *txt = isl_union_map_to_str(f);
      sj_buf_printf(&why, "%s%s", i ? ", " : "", txt ? txt : "?");
      free(txt);
      isl_union_map_free(f);
    }
    sj_buf_printf(&why, ")");
  }
  sj_buf_printf(&why, "; every space loop is parallel");
  out->why = sj_buf_take(&why);
  return 0;
}

void sj_stencil_clear(sj_stencil *s) {
  isl_union_map_free(s->folded);
  free(s->why);
  memset(s, 0, sizeof *s);
}
