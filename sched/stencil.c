/* Recognition of the stencil form (seed digest 1, input form): an outer loop whose body is
 * k >= 1 nests; nest i of step t is folded to time k*t + i, and every dependence must go
 * forward in folded time, which also makes every loop of every nest parallel. Folded time
 * never decreases along the original order, so that holds exactly when no two different
 * instances of one folded time step conflict. Then nests go in levels (merge_nests), each a
 * folded step: a nest one level above the highest of the earlier nests it conflicts with in a
 * step, so that every pair that conflicts keeps its order and folded time may decrease only
 * between nests that touch nothing in common in a step; the same test checks the levels. */
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "base/buf.h"

static int not_stencil(sj_stencil *out, sj_buf *why, const char *reason) {
  sj_buf_printf(why, "not in stencil form: %s", reason);
  out->why = sj_buf_take(why);
  return 0;
}

typedef struct nest_fill {
  const sj_model *m;
  int *nest;
  int c;
} nest_fill;

static isl_stat nest_fill_set(__isl_take isl_set *set, void *user) {
  nest_fill *f = user;
  const sj_pstmt *s = sj_model_stmt(f->m, set);
  isl_set_free(set);
  if (s) f->nest[s->id] = f->c;
  return isl_stat_ok;
}

/* Nest index of every statement, by id: the filters of a sequence below the time band, each
 * filter's statements read by name (a search over all statements per filter would make
 * this quadratic in the number of nests). */
static int nest_of(sj_model *m, __isl_keep isl_schedule_node *time, int *nest) {
  for (int i = 0; i < sj_model_nids(m); i++) nest[i] = 0;
  if (isl_schedule_node_band_n_member(time) > 1) return 1;
  isl_schedule_node *child = isl_schedule_node_get_child(time, 0);
  int k = 1;
  if (isl_schedule_node_get_type(child) == isl_schedule_node_sequence) {
    k = isl_schedule_node_n_children(child);
    for (int c = 0; c < k; c++) {
      isl_schedule_node *f = isl_schedule_node_get_child(child, c);
      isl_union_set *filter = isl_schedule_node_filter_get_filter(f);
      nest_fill fill = {m, nest, c};
      isl_union_set_foreach_set(filter, nest_fill_set, &fill);
      isl_union_set_free(filter);
      isl_schedule_node_free(f);
    }
  }
  isl_schedule_node_free(child);
  return k;
}

/* A conflict inside one folded step, when there is one: the pairs of one map of them. */
typedef struct conflict {
  isl_bool found;
  isl_map *pairs;
} conflict;

/* Sets the conflict when map relates two different instances, and stops. Conflicts hold both
 * orders, so between instances of one statement x <lex y is enough to look for; subtracting
 * the identity would make isl compute explicit forms of the existential variables of the
 * composed accesses, which is costly and not bounded by the compile budget. */
static isl_stat relates_others(__isl_take isl_map *map, void *user) {
  conflict *c = user;
  isl_space *space = isl_map_get_space(map);
  if (isl_space_tuple_is_equal(space, isl_dim_in, space, isl_dim_out) == isl_bool_true)
    map = isl_map_intersect(map, isl_map_lex_lt(isl_space_domain(space)));
  else
    isl_space_free(space);
  isl_bool empty = isl_map_is_empty(map);
  if (empty == isl_bool_true) {
    isl_map_free(map);
    return isl_stat_ok;
  }
  c->found = empty < 0 ? isl_bool_error : isl_bool_true;
  if (empty < 0)
    isl_map_free(map);
  else
    c->pairs = map;
  return isl_stat_error; /* stops the walk */
}

/* Whether some pair of pairs has its dimensions before d equal and differs at d: 1 yes, 0 no,
 * -1 when isl fails. */
static int differ_first_at(__isl_take isl_map *pairs, int d) {
  for (int k = 0; k < d; k++) pairs = isl_map_equate(pairs, isl_dim_in, k, isl_dim_out, k);
  isl_map *same = isl_map_equate(isl_map_copy(pairs), isl_dim_in, d, isl_dim_out, d);
  isl_map *differ = isl_map_subtract(pairs, same);
  isl_bool empty = isl_map_is_empty(differ);
  isl_map_free(differ);
  return empty < 0 ? -1 : !empty;
}

/* Whether some conflict of the model relates instances of different iterations of the
 * outer loop: 1 yes, 0 no, -1 when isl fails. */
static int outer_carries(sj_model *m) {
  isl_union_map *all = sj_model_conflicts(m, m->domain);
  isl_map_list *maps = isl_union_map_get_map_list(all);
  isl_union_map_free(all);
  int n = isl_map_list_n_map(maps), carries = n < 0 ? -1 : 0;
  for (int i = 0; i < n && !carries; i++)
    carries = differ_first_at(isl_map_list_get_map(maps, i), 0);
  isl_map_list_free(maps);
  return carries;
}

/* A pair of instances of pairs into buf, "S0[0, 1, 2] and S0[0, 2, 2]": one step apart
 * along the carrier where there is one such pair. */
static void example(__isl_keep isl_map *pairs, int carrier, const sj_pstmt *a, const sj_pstmt *b,
                    char *buf, size_t size) {
  isl_map *m =
      isl_map_project_out(isl_map_copy(pairs), isl_dim_param, 0, isl_map_dim(pairs, isl_dim_param));
  if (carrier > 0) {
    isl_map *near = isl_map_copy(m);
    isl_local_space *ls = isl_local_space_from_space(isl_space_wrap(isl_map_get_space(m)));
    isl_aff *step = isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set,
                                          isl_map_dim(m, isl_dim_in) + carrier);
    step = isl_aff_sub(step, isl_aff_var_on_domain(ls, isl_dim_set, carrier));
    step = isl_aff_add_constant_si(step, -1);
    near = isl_set_unwrap(isl_set_intersect(isl_map_wrap(near),
                                            isl_set_from_basic_set(isl_aff_zero_basic_set(step))));
    if (isl_map_is_empty(near) == isl_bool_false) {
      isl_map_free(m);
      m = near;
    } else {
      isl_map_free(near);
    }
  }
  isl_point *pt = isl_set_sample_point(isl_map_wrap(m));
  const sj_pstmt *side[2] = {a, b};
  int len = 0, at = 0;
  for (int k = 0; k < 2; k++) {
    if (!side[k]) break;
    len += snprintf(buf + len, size - len, "%s%s[", k ? " and " : "", side[k]->name);
    for (int i = 0; i < side[k]->depth && len < (int)size; i++, at++) {
      isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, at);
      len += snprintf(buf + len, size - len, "%s%ld", i ? ", " : "", v ? isl_val_get_num_si(v) : 0);
      isl_val_free(v);
    }
    if (len < (int)size) len += snprintf(buf + len, size - len, "]");
    if (len >= (int)size) break;
  }
  isl_point_free(pt);
}

/* Why the conflict c keeps the form from being a stencil's: the loop inside the outer one
 * that carries it, with a pair of instances; and where the outer loop carries nothing, that
 * the time loop is not outermost (a batch of independent problems). */
static int not_stencil_because(sj_model *m, sj_stencil *out, sj_buf *why, const conflict *c) {
  isl_space *space = isl_map_get_space(c->pairs);
  isl_set *from = isl_set_universe(isl_space_domain(isl_space_copy(space)));
  isl_set *to = isl_set_universe(isl_space_range(space));
  const sj_pstmt *a = sj_model_stmt(m, from), *b = sj_model_stmt(m, to);
  isl_set_free(from);
  isl_set_free(to);
  int common = 0;
  while (a && b && common < a->depth && common < b->depth && a->iters[common] == b->iters[common])
    common++;
  int carrier = -1;
  for (int d = 1; d < common && carrier < 0; d++)
    if (differ_first_at(isl_map_copy(c->pairs), d) == 1) carrier = d;
  char txt[256] = "?";
  example(c->pairs, carrier, a, b, txt, sizeof txt);
  const char *outer = a ? a->iters[0]->name : "?";
  if (carrier < 0) {
    sj_buf_printf(why,
                  "not in stencil form: a dependence stays inside one iteration of the outer loop "
                  "'%s' and of the space loops of one nest (e.g. %s), so the space loops are not "
                  "all parallel",
                  outer, txt);
  } else {
    const char *inner = a->iters[carrier]->name;
    sj_buf_printf(why,
                  "not in stencil form: the loop '%s' inside the outer loop '%s' carries a "
                  "dependence (e.g. %s), so it is not parallel",
                  inner, outer, txt);
    if (outer_carries(m) == 0)
      sj_buf_printf(why,
                    "; '%s' carries none: its iterations are independent, and '%s' is a time "
                    "loop that is not outermost (time tiling needs the time loop outside the "
                    "others)",
                    outer, inner);
  }
  out->why = sj_buf_take(why);
  return 0;
}

/* The instances of the statements of nest c with their folded step a parameter fixed in
 * each statement's domain: the conflicts among them are those of one step, for every step
 * at once, and isl composes the accesses with their time already fixed (composing them over
 * all pairs of steps, then keeping the pairs of one step, cost twice as much). */
static __isl_give isl_union_set *one_step(sj_model *m, const int *nest, int c,
                                          isl_map *const *fold) {
  isl_union_set *dom = isl_union_set_empty(isl_space_params_alloc(m->ctx, 0));
  isl_id *step = isl_id_alloc(m->ctx, "step", NULL);
  for (int i = 0; i < m->nstmts; i++) {
    if (nest[m->stmts[i]->id] != c) continue;
    isl_map *at = isl_map_copy(fold[i]); /* instance -> its folded step, = the parameter */
    at = isl_map_insert_dims(at, isl_dim_param, 0, 1);
    at = isl_map_set_dim_id(at, isl_dim_param, 0, isl_id_copy(step));
    at = isl_map_equate(at, isl_dim_param, 0, isl_dim_out, 0);
    isl_set *d = isl_set_intersect(isl_map_domain(at), isl_set_copy(m->stmts[i]->domain));
    dom = isl_union_set_add_set(dom, d);
  }
  isl_id_free(step);
  return dom;
}

/* Whether two different instances of one folded step of the statements of nest c
 * conflict: only statements of one nest can share a folded step, so the conflicts are
 * composed nest by nest and the test stays linear in the number of nests. */
static void nest_conflicts(sj_model *m, const int *nest, int c, isl_map *const *fold,
                           conflict *found) {
  isl_union_set *dom = one_step(m, nest, c, fold);
  isl_union_map *same_step = sj_model_conflicts(m, dom);
  isl_union_set_free(dom);
  if (isl_union_map_foreach_map(same_step, relates_others, found) < 0 &&
      found->found == isl_bool_false)
    found->found = isl_bool_error;
  isl_union_map_free(same_step);
}

typedef struct apart_arg {
  sj_model *m;
  int apart; /* 1: a conflict across iterations of common loops; -1: isl failed */
} apart_arg;

/* Sets a->apart where map (conflicts of one step between two statements of one nest) relates
 * instances at different iterations of the statements' common loops. */
static isl_stat across(__isl_take isl_map *map, void *user) {
  apart_arg *a = user;
  isl_set *in = isl_set_universe(isl_space_domain(isl_map_get_space(map)));
  isl_set *out = isl_set_universe(isl_space_range(isl_map_get_space(map)));
  const sj_pstmt *x = sj_model_stmt(a->m, in), *y = sj_model_stmt(a->m, out);
  isl_set_free(in);
  isl_set_free(out);
  int common = 0;
  while (x && y && x != y && common < x->depth && common < y->depth &&
         x->iters[common] == y->iters[common])
    common++;
  for (int j = 1; j < common && !a->apart; j++) a->apart = differ_first_at(isl_map_copy(map), j);
  isl_map_free(map);
  return a->apart ? isl_stat_error : isl_stat_ok;
}

/* Whether the statements of each of the k nests may each be a folded step of its own: 1 yes,
 * 0 no, -1 when isl fails. A statement guarded by t in a stencil's nest (`if (t == T - 1)
 * out[i] = A[..][i];`) conflicts with the stencil's in the same iteration, which keeps the
 * loops parallel but shares a folded step. Where two statements of a nest conflict only within
 * one iteration of their common loops, running them one after the other (loop distribution)
 * keeps every conflict in its order, and the nest as written (which the untiled schedules
 * run) keeps its loops parallel; a conflict across iterations (`out[i] = A[..][i - 1]`) would
 * make the nest as written carry it. Only where the outer loop carries a dependence or runs
 * once: else it is no time loop (a 2-D map of several statements) and its iterations run in
 * parallel. */
static int distributable(sj_model *m, const int *nest, int k, isl_map *const *fold) {
  apart_arg a = {m, 0};
  for (int c = 0; c < k && !a.apart; c++) {
    isl_union_set *dom = one_step(m, nest, c, fold);
    isl_union_map *conflicts = sj_model_conflicts(m, dom);
    isl_union_set_free(dom);
    if (isl_union_map_foreach_map(conflicts, across, &a) < 0 && !a.apart) a.apart = -1;
    isl_union_map_free(conflicts);
  }
  return a.apart < 0 ? -1 : !a.apart;
}

/* Whether the outer loop runs at most once (T = 1: it carries nothing, yet is a time loop). */
static int one_iteration(const sj_model *m) {
  long first = 0, last = -1;
  for (int i = 0; i < m->nstmts; i++) {
    long lo, hi;
    if (sj_set_dim_range(m->stmts[i]->domain, 0, &lo, &hi)) return 0;
    if (lo > hi) continue;
    if (last < first) first = lo, last = hi;
    first = lo < first ? lo : first, last = hi > last ? hi : last;
  }
  return last - first < 1;
}

/* The folded step of every statement: k t + its nest. */
static void fold_steps(sj_model *m, __isl_keep isl_union_pw_aff *t, const int *nest, int k,
                       isl_map **fold) {
  for (int i = 0; i < m->nstmts; i++) {
    isl_space *space = isl_set_get_space(m->stmts[i]->domain);
    isl_pw_aff *pa = isl_union_pw_aff_extract_pw_aff(
        t, isl_space_map_from_domain_and_range(space, isl_space_set_alloc(m->ctx, 0, 1)));
    pa = isl_pw_aff_scale_val(pa, isl_val_int_from_si(m->ctx, k));
    pa = isl_pw_aff_add_constant_val(pa, isl_val_int_from_si(m->ctx, nest[m->stmts[i]->id]));
    isl_map_free(fold[i]);
    fold[i] = isl_map_from_pw_aff(pa);
  }
}

/* The conflicts within one folded step of the k nests into found. */
static void step_conflicts(sj_model *m, const int *nest, int k, isl_map *const *fold,
                           conflict *found) {
  for (int c = 0; c < k && found->found == isl_bool_false; c++)
    nest_conflicts(m, nest, c, fold, found);
}

/* The most nests whose pairs merge_nests tests (a conflict test each). */
enum { MERGE_MAX_NESTS = 8 };

/* The points of a step of statement s: the product of its space loops' ranges. */
static double step_points(const sj_pstmt *s) {
  double n = 1;
  for (int j = 1; j < s->depth; j++) {
    long lo, hi;
    if (sj_set_dim_range(s->domain, j, &lo, &hi)) return 0;
    n *= hi >= lo ? (double)(hi - lo + 1) : 0;
  }
  return n;
}

/* The pairs of nests merge_nests has tested, and what it needs to test them. */
typedef struct nest_pairs {
  sj_model *m;
  const int *nest;
  int *pair;    /* by statement id: 0 for the statements of the pair tested, 1 the others */
  isl_map **at; /* each statement's instance -> its step t */
  signed char tested[MERGE_MAX_NESTS][MERGE_MAX_NESTS]; /* 0 untested, 1 apart, 2 conflict */
} nest_pairs;

/* Whether nests c and e conflict within a step (isl failing: they do). */
static int pair_conflicts(nest_pairs *p, int c, int e) {
  if (!p->tested[c][e]) {
    conflict found = {isl_bool_false, NULL};
    for (int i = 0; i < p->m->nstmts; i++) {
      int id = p->m->stmts[i]->id;
      p->pair[id] = p->nest[id] == c || p->nest[id] == e ? 0 : 1;
    }
    nest_conflicts(p->m, p->pair, 0, p->at, &found); /* none within one nest */
    isl_map_free(found.pairs);
    p->tested[c][e] = found.found == isl_bool_false ? 1 : 2;
  }
  return p->tested[c][e] == 2;
}

/* Whether an earlier nest than c sits at level at and is big where c is small, or small where
 * c is big. */
static int holds_other(const int *level, const int *big, int c, int at) {
  for (int e = 0; e < c; e++)
    if (level[e] == at && big[e] != big[c]) return 1;
  return 0;
}

/* Whether an earlier nest than c sits at level at and runs at a step c runs at too. */
static int shares_steps(const int *level, isl_set *const *steps, int c, int at) {
  for (int e = 0; e < c; e++)
    if (level[e] == at && isl_set_is_disjoint(steps[e], steps[c]) == isl_bool_false) return 1;
  return 0;
}

/* The levels of the k nests into level, a nest above every earlier nest it conflicts with
 * within a step: with big (bigs of them), big nests that run at a common step (steps: each
 * nest's steps t) keep a level each and where there are several, small ones do not share
 * theirs; with common, a nest shares a level only where it runs at a step that level's nests
 * run at, else it takes one above them all. Returns the number of levels. */
static int place_nests(nest_pairs *p, int k, const int *big, int bigs, isl_set *const *steps,
                       int common, int *level) {
  int levels = 1;
  level[0] = 0;
  for (int c = 1; c < k; c++) {
    int above = 0; /* the lowest level c may take */
    for (int e = 0; e < c; e++) {
      if (level[e] < above) continue; /* c is above e already */
      int bigs_meet =
          big && big[e] && big[c] && isl_set_is_disjoint(steps[e], steps[c]) != isl_bool_true;
      if (bigs_meet || pair_conflicts(p, c, e)) above = level[e] + 1;
    }
    while (big && bigs > 1 && holds_other(level, big, c, above)) above++;
    while (common && above < levels && !shares_steps(level, steps, c, above)) above++;
    level[c] = above;
    levels = above + 1 > levels ? above + 1 : levels;
  }
  return levels;
}

/* Nests in levels, into nest (indexed by statement id, k nests): a nest sits above every
 * earlier nest it conflicts with within a step, so the nests of one level touch nothing in
 * common in a step and may share its folded step. Returns the number of levels. A small nest
 * (under half the points of a step of the largest: a side of the grid, a halo) is a folded step
 * of few points that costs a barrier and widens the tiles: the four sides of boundary_sides,
 * each set from the stencil's values, take 2 folded steps a step, not 5 (a tile of the same
 * folded height holds 2.5 times the steps); halo1d's copies of the last plane, 3, 1. The big
 * nests that run at a common step keep a level each, in their order (two in one step make a
 * step of twice the work; the nests of a stencil that swaps arrays by pointers, one for each
 * place in the rotation, never run at one step and share one: a folded step a step), and
 * where there are several, the small ones keep levels of their own too: the big nests' steps
 * are most of the tiles' then, and fdtd-2d's tiled code, measured on an H200 at its fold of 4
 * levels, ran at twice the per-step mapping's time (the choice tests/schedule_test.c keeps,
 * which a level fewer would turn without a measure of its own).
 *
 * The per-step mapping's launches of a step go in levels too, into launch (by statement id; the
 * number of them into *launches): there any nests share a level (fdtd-2d's row and its updates
 * of ey and ex one launch, hz another), as a launch costs more than the work of a small nest,
 * but only where they run at a common step (the updates of even and odd steps of a stencil
 * that swaps its arrays by pointers are nests of their own, never at one step: together, each
 * launch would hold the code of both). */
static int merge_nests(sj_model *m, __isl_keep isl_union_pw_aff *t, int *nest, int k, int *launch,
                       int *launches) {
  *launches = k;
  if (k < 2 || k > MERGE_MAX_NESTS) return k;
  nest_pairs p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.nest = nest;
  p.pair = calloc((size_t)sj_model_nids(m), sizeof *p.pair);
  p.at = calloc((size_t)m->nstmts, sizeof *p.at);
  if (!p.pair || !p.at) abort();
  int big[MERGE_MAX_NESTS] = {0}, level[MERGE_MAX_NESTS], step_level[MERGE_MAX_NESTS];
  double size[MERGE_MAX_NESTS] = {0}, largest = 0;
  isl_set *steps[MERGE_MAX_NESTS] = {NULL};
  for (int i = 0; i < m->nstmts; i++) {
    const sj_pstmt *s = m->stmts[i];
    int c = nest[s->id];
    size[c] += step_points(s);
    isl_set *at = sj_steps_of(s->domain);
    steps[c] = steps[c] ? isl_set_union(steps[c], at) : at;
  }
  for (int c = 0; c < k; c++) largest = size[c] > largest ? size[c] : largest;
  int bigs = 0;
  for (int c = 0; c < k; c++) bigs += big[c] = 2 * size[c] >= largest;
  fold_steps(m, t, p.pair, 1, p.at); /* each instance -> its step t */
  int levels = place_nests(&p, k, big, bigs, steps, 0, level);
  *launches = place_nests(&p, k, NULL, 0, steps, 1, step_level);
  for (int i = 0; i < m->nstmts; i++) {
    int id = m->stmts[i]->id;
    launch[id] = step_level[nest[id]];
    nest[id] = level[nest[id]];
    isl_map_free(p.at[i]);
  }
  for (int c = 0; c < k; c++) isl_set_free(steps[c]);
  free(p.at);
  free(p.pair);
  return levels;
}

/* Whether no two nests of a folded step conflict, the nests in levels (by statement id): isl's
 * check of merge_nests' tests; fold: each statement's folding into those levels. */
static int levels_hold(sj_model *m, __isl_keep isl_union_pw_aff *t, const int *level, int levels,
                       isl_map **fold) {
  conflict found = {isl_bool_false, NULL};
  fold_steps(m, t, level, levels, fold);
  step_conflicts(m, level, levels, fold, &found);
  isl_map_free(found.pairs);
  return found.found == isl_bool_false;
}

/* Whether every statement has a place in the space of the one with the most loops (sched/place.c):
 * the per-step mapping can then launch the nests of a level together. */
static int placed(const sj_model *m) {
  sj_place place;
  for (int i = 0; i < m->nstmts; i++)
    if (sj_place_of(m, m->stmts[i], m->max_depth - 2, &place)) return 0;
  return 1;
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
  int *nest = calloc((size_t)(unsigned)sj_model_nids(m), sizeof *nest);
  isl_map **fold = calloc(count, sizeof *fold);
  int k = nest_of(m, time, nest), step_nests = k;
  isl_multi_union_pw_aff *partial = isl_schedule_node_band_get_partial_schedule(time);
  isl_union_pw_aff *t = isl_multi_union_pw_aff_get_union_pw_aff(partial, 0);
  isl_multi_union_pw_aff_free(partial);
  isl_schedule_node_free(time);

  isl_ctx *ctx = m->ctx;
  fold_steps(m, t, nest, k, fold);

  /* conflicts between instances of one folded step, other than an instance with itself */
  conflict found = {isl_bool_false, NULL};
  step_conflicts(m, nest, k, fold, &found);
  if (found.found == isl_bool_true && m->nstmts > k && distributable(m, nest, k, fold) == 1 &&
      (one_iteration(m) || outer_carries(m) == 1)) {
    conflict apart = {isl_bool_false, NULL};
    for (int i = 0; i < m->nstmts; i++) nest[m->stmts[i]->id] = i;
    fold_steps(m, t, nest, m->nstmts, fold);
    step_conflicts(m, nest, m->nstmts, fold, &apart);
    if (apart.found == isl_bool_false) {
      isl_map_free(found.pairs);
      found = apart;
      k = m->nstmts;
    } else {
      isl_map_free(apart.pairs);
    }
  }
  int *launch = NULL, launches = k;
  if (found.found == isl_bool_false) { /* nests that share nothing in a step share its fold */
    size_t ids = (size_t)sj_model_nids(m) * sizeof *launch;
    int *level = malloc(ids);
    launch = malloc(ids);
    if (!level || !launch) abort();
    memcpy(level, nest, ids);
    step_nests = k;
    int levels = merge_nests(m, t, level, k, launch, &launches);
    if (levels < k && levels_hold(m, t, level, levels, fold))
      k = levels;
    else if (levels < k) /* isl failed: the nests one by one */
      fold_steps(m, t, nest, k, fold);
    free(level);
    /* the launches need no such check: the conflicts within a level are those of its pairs of
     * nests, each of which merge_nests tested (isl failing counts as a conflict) */
    if (launches == step_nests) {
      free(launch);
      launch = NULL;
    }
  }
  isl_union_pw_aff_free(t);
  free(nest);
  if (found.found != isl_bool_false) {
    for (int i = 0; i < m->nstmts; i++) isl_map_free(fold[i]);
    free(fold);
    if (!found.pairs)
      return not_stencil(out, &why,
                         "a dependence stays inside one time step of one nest, so the space "
                         "loops are not all parallel");
    not_stencil_because(m, out, &why, &found);
    isl_map_free(found.pairs);
    return 0;
  }
  out->is_stencil = 1;
  m->stencil = 1;
  out->nests = k;
  out->step_nests = step_nests;
  if (launch && placed(m)) {
    out->launch = launch;
    out->launches = launches;
  } else {
    free(launch);
  }
  out->time = m->stmts[0]->iters[0];
  sj_buf_printf(&why, "stencil form: loop '%s' carries every dependence over %d nest%s",
                out->time->name, step_nests, step_nests > 1 ? "s" : "");
  if (step_nests > 1) sj_buf_printf(&why, " folded into one time dimension (");
  isl_union_map *folded = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
  for (int i = 0; i < m->nstmts; i++) {
    if (step_nests > 1) {
      char *txt = isl_map_to_str(fold[i]);
      sj_buf_printf(&why, "%s%s", i ? ", " : "", txt ? txt : "?");
      free(txt);
    }
    folded = isl_union_map_add_map(folded, fold[i]);
  }
  free(fold);
  out->folded = folded;
  if (step_nests > 1) sj_buf_printf(&why, ")");
  if (k < step_nests)
    sj_buf_printf(&why, ", %d folded step%s a step (nests that touch nothing in common share one)",
                  k, k > 1 ? "s" : "");
  sj_buf_printf(&why, "; every space loop is parallel");
  out->why = sj_buf_take(&why);
  return 0;
}

void sj_stencil_clear(sj_stencil *s) {
  isl_union_map_free(s->folded);
  free(s->launch);
  free(s->why);
  memset(s, 0, sizeof *s);
}
