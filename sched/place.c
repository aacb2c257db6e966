/* Where a statement with fewer space loops than a stencil's sits in its folded space (sched.h,
 * sj_place_of). The time tilings tile that space and take their cone from the dependences in
 * it, so any place is legal; but a statement placed away from the elements it writes joins
 * instances far apart (a source at the grid's centre placed at 0 reached half the grid in one
 * step: no tiling applied). */
#include "sched/hybrid.h"

#include <isl/aff.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <string.h>

/* Along f, the loop (>= 1) that index aff is, plus a constant, or 0 and *cst the constant it
 * is; -1 for anything else. */
static int index_place(__isl_keep isl_aff *aff, int depth, long *cst) {
  if (isl_aff_dim(aff, isl_dim_div) != 0) return -1;
  isl_val *c = isl_aff_get_constant_val(aff);
  int whole = isl_val_is_int(c) == isl_bool_true;
  *cst = whole ? isl_val_get_num_si(c) : 0;
  isl_val_free(c);
  if (!whole) return -1;
  int loop = 0;
  for (int j = 0; j < depth; j++) {
    isl_val *v = isl_aff_get_coefficient_val(aff, isl_dim_in, j);
    int zero = isl_val_is_zero(v) == isl_bool_true, one = isl_val_is_one(v) == isl_bool_true;
    isl_val_free(v);
    if (zero) continue;
    if (!one || j == 0 || loop) return -1; /* time, a stride, or two loops */
    loop = j;
  }
  return loop;
}

/* The place of s from its access acc into p; 0, or -1 where the access does not say one. */
static int place_of_access(const sj_pstmt *s, const sj_access *acc, int n, sj_place *p) {
  isl_multi_aff *ma = sj_one_piece(isl_pw_multi_aff_from_map(isl_map_copy(acc->rel)));
  int rank = ma ? (int)isl_multi_aff_dim(ma, isl_dim_out) : 0, ok = ma && rank >= n + 1;
  int used[SJ_PLACE_MAX + 1] = {0};
  for (int f = 0; ok && f <= n; f++) {
    isl_aff *aff = isl_multi_aff_get_aff(ma, rank - (n + 1) + f);
    int loop = index_place(aff, s->depth, &p->cst[f]);
    isl_aff_free(aff);
    ok = loop >= 0 && !(loop && used[loop]);
    if (ok && loop) used[loop] = 1, p->cst[f] = 0;
    p->dim_of[f] = ok ? loop : 0;
  }
  /* every loop a dimension, but for loops of one iteration (`_pt`, sched/model.c) */
  for (int j = 1; ok && j < s->depth; j++) {
    long lo, hi;
    ok = used[j] || (!sj_set_dim_range(s->domain, j, &lo, &hi) && lo == hi);
  }
  isl_multi_aff_free(ma);
  return ok ? 0 : -1;
}

/* Whether a statement before s in the time step writes an element that read acc of s reads at
 * the same step: s copies a value computed just before it (a boundary row set from the row
 * beside it). */
static int fresh(const sj_model *m, const sj_pstmt *s, const sj_access *acc) {
  int found = 0;
  for (int a = 0; a < m->naccesses && !found && s->depth; a++) {
    const sj_access *w = &m->accesses[a];
    if (!w->is_write || w->again || !w->stmt->depth || w->stmt->id >= s->id ||
        w->ref->sym != acc->ref->sym)
      continue;
    isl_map *pairs =
        isl_map_apply_range(isl_map_copy(acc->rel), isl_map_reverse(isl_map_copy(w->rel)));
    pairs = isl_map_equate(pairs, isl_dim_in, 0, isl_dim_out, 0); /* the same time step */
    found = isl_map_is_empty(pairs) == isl_bool_false;
    isl_map_free(pairs);
  }
  return found;
}

int sj_place_of(const sj_model *m, const sj_pstmt *s, int n, sj_place *out) {
  if (n + 1 > SJ_PLACE_MAX || s->depth - 1 > n + 1) return -1;
  memset(out, 0, sizeof *out);
  int pad = n + 2 - s->depth;
  for (int f = pad; f <= n; f++) out->dim_of[f] = f - pad + 1;
  /* a statement with every loop sits at them, but for the one-point loop of an assignment
   * directly in the time loop (sched/model.c), which a 1-D stencil's source has as many loops */
  int point = 0;
  for (int j = 1; j < s->depth; j++) point |= m->point && s->iters[j] == m->point;
  if (pad == 0 && !point) return 0;
  /* where a read of a value computed before it in the step says (the instances it depends on
   * then sit a folded step before it, where a distance in space would make the tiles' slopes
   * steep); else the place every write of s says, if they say the same; else the first that
   * a read says (a row's sum S[i] += A[t % 2][i][1] at (i, 1), beside what it reads) */
  sj_place first, mine;
  memset(&first, 0, sizeof first);
  memset(&mine, 0, sizeof mine);
  for (int a = 0; a < m->naccesses; a++) {
    const sj_access *acc = &m->accesses[a];
    if (acc->stmt == s && !acc->is_write && !place_of_access(s, acc, n, &first) &&
        fresh(m, s, acc)) {
      *out = first;
      return 0;
    }
  }
  int writes = 0, agree = 1;
  for (int a = 0; a < m->naccesses && agree; a++) {
    const sj_access *acc = &m->accesses[a];
    if (acc->stmt != s || !acc->is_write) continue;
    agree = !place_of_access(s, acc, n, writes ? &mine : &first) &&
            !(writes++ && memcmp(&first, &mine, sizeof mine));
  }
  if (writes && agree) {
    *out = first;
    return 0;
  }
  for (int a = 0; a < m->naccesses; a++) {
    const sj_access *acc = &m->accesses[a];
    if (acc->stmt == s && !acc->is_write && !place_of_access(s, acc, n, &first)) {
      *out = first;
      return 0;
    }
  }
  return 0;
}

__isl_give isl_multi_aff *sj_place_aff(const sj_model *m, const sj_pstmt *s, int n) {
  sj_place place;
  if (sj_place_of(m, s, n, &place)) return NULL;
  isl_space *space = isl_set_get_space(s->domain);
  isl_multi_aff *at = isl_multi_aff_zero(isl_space_map_from_domain_and_range(
      isl_space_copy(space), isl_space_set_alloc(m->ctx, 0, (unsigned)n + 1)));
  isl_local_space *ls = isl_local_space_from_space(space);
  for (int f = 0; f <= n; f++) {
    int j = place.dim_of[f];
    at = isl_multi_aff_set_aff(
        at, f,
        j ? isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, (unsigned)j)
          : isl_aff_val_on_domain(isl_local_space_copy(ls),
                                  isl_val_int_from_si(m->ctx, place.cst[f])));
  }
  isl_local_space_free(ls);
  return at;
}
