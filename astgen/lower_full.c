/* The code of full tiles (sched/full_tiles.c): under a `full_tiles` mark a kernel holds the
 * steps of a full tile and the steps of any tile, each below a `version` mark. A thread runs
 * the first where isl's guards let it reach it and then skips the second: the full tile's
 * version holds all of a tile's instances or none, so the thread runs each instance once.
 * Below an `unroll` mark (a version of its own) are the steps of every tile where few are
 * full, and the copies of staged boxes.
 *
 * Loops whose bounds lie in a window of constant size (a full tile's steps and its rows in
 * each step; elsewhere the same cut by the instances, a box clipped by the array) are unrolled
 * as far as the kernel's level allows (sj_lower.full_level, chosen by astgen/lower.c from the
 * register estimate and the size):
 *   3  every such loop, those spread over the threads too;
 *   2  the loops a thread runs alone (a tile's steps), spread loops stay loops unless a thread
 *      runs them at most once;
 *   1  nothing unrolled, the full tile's version kept (its bounds are constants);
 *   0  the full tile's version dropped: every tile runs the general code.
 * An unrolled copy binds the iterator to one value plus a constant, so its addresses are one
 * pointer plus constant offsets (lower_expr.c). A loop spread over the n threads of a block
 * dimension becomes ceil(trip / n) copies, each thread's k-th iteration (or, blocked, its k-th
 * of a block of consecutive ones), the last ones guarded where the trip count is not a multiple
 * of n (short guards become predicates, astgen/opt.c);
 * the points of a statement count from the tile, not from each step's window (anchored).
 * A copy is guarded too where the window is cut (see trip). */
#include "astgen/lower.h"

#include <isl/val.h>

#include <string.h>

#include "astgen/astgen.h"
#include "base/arith.h"

/* More copies than this keep their loop: the code would outgrow the instruction cache. A loop a
 * thread runs alone (a tile's steps) may have more: a band of 66 steps kept as a loop leaves its
 * rows' loops with bounds that move with the step, at 2.5 times the instructions (jacobi-1d
 * hybrid h=32); the kernel's statement count (astgen/lower.c) still bounds the code. */
enum { MAX_COPIES = 64, MAX_STEP_COPIES = 160 };

/* The most copies of staged elements a thread runs in one line: ptxas issues their loads
 * together, a register each (a 3072^2 hybrid tile's 152, unrolled, spilled at 128 registers);
 * a loop a thread runs alone that would make more stays a loop of a few copies an iteration
 * (astgen/lower.c). */
enum { COPY_BATCH = 32 };

/* The arguments of e, a tree of op (max or min), into args: the constants folded into *c
 * (*have: there is one), of two arguments a constant apart in this copy the one that wins
 * (a hexagon's row bounds at a step of an unrolled tile), the others added. */
static void flatten(sj_lower *l, __isl_keep isl_ast_expr *e, enum isl_ast_expr_op_type op, long *c,
                    int *have, isl_ast_expr_list **args) {
  int is_max = op == isl_ast_expr_op_max;
  if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
    isl_val *v = isl_ast_expr_get_val(e);
    long x = isl_val_get_num_si(v);
    isl_val_free(v);
    *c = !*have ? x : is_max == (x > *c) ? x : *c;
    *have = 1;
    return;
  }
  if (isl_ast_expr_get_type(e) == isl_ast_expr_op && isl_ast_expr_op_get_type(e) == op) {
    for (int i = 0; i < isl_ast_expr_op_get_n_arg(e); i++) {
      isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
      flatten(l, a, op, c, have, args);
      isl_ast_expr_free(a);
    }
    return;
  }
  for (int i = 0; i < isl_ast_expr_list_n_ast_expr(*args); i++) {
    isl_ast_expr *a = isl_ast_expr_list_get_ast_expr(*args, i);
    long d; /* e - a */
    int known = sj_lw_const_diff(l, a, e, &d);
    isl_ast_expr_free(a);
    if (!known) continue;
    if (is_max == (d > 0)) *args = isl_ast_expr_list_set_ast_expr(*args, i, isl_ast_expr_copy(e));
    return;
  }
  *args = isl_ast_expr_list_add(*args, isl_ast_expr_copy(e));
}

/* A for node's iterations as a window of n values from start, of which the loop takes one in
 * step (the steps of a statement run every other folded step), each checked where the bounds
 * are not a constant apart:
 *   exact:    the bounds a constant apart (no check);
 *   constant: max(lo, X..) .. min(hi, Y..): the window lo .. hi, each value checked against the
 *             X and Y (*lower, *upper), a tile's steps cut by the first or last step;
 *   moving:   max(lo.., X) .. min(hi.., Y) with Y - X a constant: the window from the loop's
 *             first value, each checked against its last (*bound) where a constant clips it
 *             (a copy of a box clipped to the array); of the arguments of a max or min a
 *             constant apart in this copy only the one that wins counts (flatten). */
typedef struct trip {
  sj_ir_val start;
  long n, step;
  isl_ast_expr_list *lower, *upper; /* constant window: the bounds to check */
  sj_ir_val bound;                  /* moving window: the upper bound to check */
  int strict;                       /* upper bounds are strict */
  isl_ast_expr *base;               /* start's expression where it is one, else NULL */
} trip;

/* The one argument of list that is not a constant, or NULL. */
static __isl_give isl_ast_expr *single(__isl_keep isl_ast_expr_list *list) {
  return isl_ast_expr_list_n_ast_expr(list) == 1 ? isl_ast_expr_list_get_ast_expr(list, 0) : NULL;
}

static int window(sj_lower *l, __isl_keep isl_ast_expr *init, __isl_keep isl_ast_expr *bound,
                  trip *t) {
  isl_ctx *ctx = isl_ast_expr_get_ctx(init);
  long diff, lo = 0, hi = 0;
  int have_lo = 0, have_hi = 0;
  t->lower = isl_ast_expr_list_alloc(ctx, 2);
  t->upper = isl_ast_expr_list_alloc(ctx, 2);
  flatten(l, init, isl_ast_expr_op_max, &lo, &have_lo, &t->lower);
  flatten(l, bound, isl_ast_expr_op_min, &hi, &have_hi, &t->upper);
  isl_ast_expr *x = single(t->lower), *y = single(t->upper);
  int moving = x && y && sj_lw_const_diff(l, x, y, &diff);
  /* a step over 1: the values from lo are the loop's only where every lower bound beside lo
   * is congruent to it (isl's bounds of a strided loop are) */
  int aligned = 1;
  for (int i = 0; t->step > 1 && have_lo && aligned && i < isl_ast_expr_list_n_ast_expr(t->lower);
       i++) {
    isl_ast_expr *e = isl_ast_expr_list_get_ast_expr(t->lower, i);
    long r;
    aligned = sj_lw_residue(l, e, t->step, &r) && r == lo - t->step * sj_floor_div(lo, t->step);
    isl_ast_expr_free(e);
  }
  if (!aligned) {
    moving = 0;
  } else if (have_lo && have_hi && (!moving || hi - lo <= diff)) {
    /* constant: the smaller window */
    t->start = sj_ir_int(SJ_IR_S64, lo);
    t->n = hi + !t->strict - lo;
    moving = -1;
  } else if (moving) { /* the window from x, checked against min(hi, y) where clipped */
    sj_irb *b = &l->b;
    sj_ir_val vx = sj_lw_iexpr(l, x), vy = sj_lw_iexpr(l, y);
    if (!have_lo) t->base = isl_ast_expr_copy(x);
    t->start = have_lo ? sj_irb_op(b, SJ_IR_MAX, SJ_IR_S64, vx, sj_ir_int(SJ_IR_S64, lo)) : vx;
    if (have_lo || have_hi)
      t->bound = have_hi ? sj_irb_op(b, SJ_IR_MIN, SJ_IR_S64, vy, sj_ir_int(SJ_IR_S64, hi)) : vy;
    t->n = diff + !t->strict;
  }
  isl_ast_expr_free(x);
  isl_ast_expr_free(y);
  if (moving >= 0) {
    t->lower = isl_ast_expr_list_free(t->lower);
    t->upper = isl_ast_expr_list_free(t->upper);
  }
  return moving != 0;
}

static int trip_of(sj_lower *l, __isl_keep isl_ast_node *node, __isl_keep isl_id *id, trip *t) {
  isl_ast_expr *init = isl_ast_node_for_get_init(node), *inc = isl_ast_node_for_get_inc(node);
  isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
  int ok = isl_ast_expr_get_type(inc) == isl_ast_expr_int;
  t->step = 1;
  if (ok) {
    isl_val *v = isl_ast_expr_get_val(inc);
    t->step = isl_val_get_num_si(v);
    ok = t->step >= 1;
    isl_val_free(v);
  }
  isl_ast_expr *bound = ok ? sj_lw_upper_bound(cond, id, &t->strict) : NULL;
  long diff = 0;
  memset(&t->bound, 0, sizeof t->bound);
  t->lower = t->upper = NULL;
  t->base = NULL;
  if (bound && sj_lw_const_diff(l, init, bound, &diff)) { /* exact */
    t->n = diff + !t->strict;
    t->start = sj_lw_iexpr(l, init);
    t->base = isl_ast_expr_copy(init);
  } else {
    ok = bound && window(l, init, bound, t);
  }
  isl_ast_expr_free(bound);
  isl_ast_expr_free(init);
  isl_ast_expr_free(inc);
  isl_ast_expr_free(cond);
  return ok;
}

/* p and q, either absent (kind SJ_V_NONE). */
static sj_ir_val both(sj_lower *l, sj_ir_val p, sj_ir_val q) {
  if (p.kind == SJ_V_NONE) return q;
  if (q.kind == SJ_V_NONE) return p;
  return sj_irb_op(&l->b, SJ_IR_AND, SJ_IR_PRED, p, q);
}

/* A constant window's bounds: *lo and *hi the loop's first and last values (max and min with
 * the window's ends), NULL where the window has no bound to check. */
static int window_bounds(sj_lower *l, const trip *t, sj_ir_val *lo, sj_ir_val *hi) {
  if (!t->lower && !t->upper) return 0;
  sj_irb *b = &l->b;
  *lo = t->start;
  *hi = sj_ir_int(SJ_IR_S64, t->start.i + t->n - 1);
  for (int side = 0; side < 2; side++) {
    isl_ast_expr_list *list = side ? t->upper : t->lower;
    for (int i = 0; i < isl_ast_expr_list_n_ast_expr(list); i++) {
      isl_ast_expr *e = isl_ast_expr_list_get_ast_expr(list, i);
      sj_ir_val x = sj_lw_iexpr(l, e);
      if (side && t->strict) x = sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 1));
      *(side ? hi : lo) =
          sj_irb_op(b, side ? SJ_IR_MIN : SJ_IR_MAX, SJ_IR_S64, *(side ? hi : lo), x);
      isl_ast_expr_free(e);
    }
  }
  return 1;
}

/* Whether node holds a loop other than one spread over the threads along x (dimension 0:
 * a block is as wide as a tile's rows, one copy a thread, unrolled at level 2 as well). */
static int holds_loop(__isl_keep isl_ast_node *node) {
  isl_ast_node *child = NULL;
  int found = 0;
  switch (isl_ast_node_get_type(node)) {
  case isl_ast_node_for:
    return 1;
  case isl_ast_node_mark: {
    isl_id *id = isl_ast_node_mark_get_id(node);
    const sj_mapped_id *tag = isl_id_get_user(id);
    int x = tag && tag->tag == SJ_ID_SPREAD && tag->dim == 0;
    isl_id_free(id);
    child = isl_ast_node_mark_get_node(node);
    if (x && isl_ast_node_get_type(child) == isl_ast_node_for) {
      isl_ast_node *inner = isl_ast_node_for_get_body(child);
      isl_ast_node_free(child);
      child = inner;
    }
    found = holds_loop(child);
    break;
  }
  case isl_ast_node_if:
    child = isl_ast_node_if_get_then_node(node);
    found = holds_loop(child);
    if (!found && isl_ast_node_if_has_else_node(node)) {
      isl_ast_node_free(child);
      child = isl_ast_node_if_get_else_node(node);
      found = holds_loop(child);
    }
    break;
  case isl_ast_node_block: {
    isl_ast_node_list *list = isl_ast_node_block_get_children(node);
    for (int i = 0; i < isl_ast_node_list_n_ast_node(list) && !found; i++) {
      isl_ast_node *c = isl_ast_node_list_get_ast_node(list, i);
      found = holds_loop(c);
      isl_ast_node_free(c);
    }
    isl_ast_node_list_free(list);
    break;
  }
  default:
    break;
  }
  isl_ast_node_free(child);
  return found;
}

static isl_bool not_copy(__isl_keep isl_ast_node *node, void *user) {
  if (isl_ast_node_get_type(node) != isl_ast_node_user) return isl_bool_true;
  isl_ast_expr *call = isl_ast_node_user_get_expr(node);
  const sj_id_kind *tag = sj_lw_callee(call);
  *(int *)user = tag && *tag == SJ_ID_COPY && *(int *)user != 0 ? 1 : 0;
  isl_ast_expr_free(call);
  return isl_bool_true;
}

/* Whether the statements below node are copies of staged elements, and there are some. */
static int copies_only(__isl_keep isl_ast_node *node) {
  int only = -1; /* -1: none seen yet */
  isl_ast_node_foreach_descendant_top_down(node, not_copy, &only);
  return only == 1;
}

/* The test j < x where below, else j >= x (*never set where it fails whatever j is). */
static sj_ir_val test_below(sj_irb *b, sj_ir_val j, sj_ir_val x, int below, int *never) {
  if (j.kind == SJ_V_INT && x.kind == SJ_V_INT) { /* decided here: PTX compares registers */
    *never |= below ? j.i >= x.i : j.i < x.i;
    return (sj_ir_val){0};
  }
  return below ? sj_irb_setp(b, SJ_CMP_LT, j, x) : sj_irb_setp(b, SJ_CMP_GE, j, x);
}

static sj_ir_val thread_id(sj_irb *b, int dim) {
  return sj_irb_special(b, (sj_ir_special)(SJ_SPECIAL_TID_X + dim));
}

/* Copy of a group at j + off: behind a test of j against lim less off where test_lim, and of a
 * cut's lower end lo where cut. */
static void group_copy(sj_lower *l, __isl_keep isl_ast_node *child, __isl_keep isl_id *id,
                       sj_ir_val j, long off, sj_ir_val lim, int test_lim, sj_ir_val lo, int cut,
                       sj_lw_fn body) {
  sj_irb *b = &l->b;
  sj_ir_val o = sj_ir_int(SJ_IR_S64, off), go = {0};
  int never = 0;
  if (test_lim) go = test_below(b, j, sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, lim, o), 1, &never);
  if (cut) go = both(l, go, test_below(b, j, sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, lo, o), 0, &never));
  if (never) return;
  sj_irb_pos in = {0};
  if (go.kind != SJ_V_NONE) in = sj_irb_enter(b, &sj_irb_if(b, go)->then, 0);
  sj_lw_bind(l, id, j, off);
  l->binds[l->nbinds - 1].copies = 1;
  body(l, child);
  sj_lw_unbind(l);
  if (go.kind != SJ_V_NONE) sj_irb_leave(b, in);
}

/* The spread loop of trip t over the width threads of block dimension dim as a loop over
 * groups of sj_lower.group copies: thread r's iterations first + k * width, while below lim (the
 * window's end, its bound, a cut's upper end), each copy after the first behind a test of the
 * loop's value against lim less its offset (invariant: hoisted), and of a cut's lower end.
 * The groups run untested while all their copies are in, and the rest after them: unrolled
 * where the window's ends are constants (one thread along it), else as a loop of single
 * copies. The tests of a group's last copies fail in its last iteration only, and cost 2
 * instructions a copy in every other (a 2-D hybrid tile's rows). */
static void grouped(sj_lower *l, __isl_keep isl_ast_node *node, __isl_keep isl_id *id,
                    const trip *t, int dim, long width, int blocked, sj_lw_fn body) {
  sj_irb *b = &l->b;
  long group = l->group, copies = (t->n + width - 1) / width;
  sj_ir_val r, first,
      lim = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, t->start, sj_ir_int(SJ_IR_S64, t->n));
  if (blocked) { /* thread r's block of copies: from the window's start + r * copies */
    r = sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, thread_id(b, dim), sj_ir_int(SJ_IR_S64, copies));
    first = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, t->start, r);
    lim = sj_irb_op(b, SJ_IR_MIN, SJ_IR_S64, lim,
                    sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, first, sj_ir_int(SJ_IR_S64, copies)));
    width = 1; /* the copies' distance from here on */
  } else {
    first = sj_lw_spread_first(l, thread_id(b, dim), t->start, sj_ir_int(SJ_IR_S64, 1), width, &r);
  }
  if (t->bound.kind != SJ_V_NONE)
    lim = sj_irb_op(b, SJ_IR_MIN, SJ_IR_S64, lim,
                    t->strict
                        ? t->bound
                        : sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, t->bound, sj_ir_int(SJ_IR_S64, 1)));
  sj_ir_val lo, hi;
  int cut = window_bounds(l, t, &lo, &hi);
  if (cut)
    lim = sj_irb_op(b, SJ_IR_MIN, SJ_IR_S64, lim,
                    sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, hi, sj_ir_int(SJ_IR_S64, 1)));
  /* a window of constant ends (width 1): its whole groups and the rest known here; else the
   * groups run while all their copies are in, and a loop of single copies runs the rest */
  int known = width == 1 && first.kind == SJ_V_INT && lim.kind == SJ_V_INT;
  long count = known ? lim.i - first.i : 0;
  long whole = count >= group ? count / group * group : 0;
  int rest = !known && copies > group;
  sj_ir_val end =
      whole  ? sj_ir_int(SJ_IR_S64, first.i + whole)
      : rest ? sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, lim, sj_ir_int(SJ_IR_S64, (group - 1) * width))
             : lim;
  sj_ir_node *loop = sj_irb_loop(b, first, sj_ir_int(SJ_IR_S64, group * width));
  sj_irb_pos pos = sj_irb_enter(b, &loop->head, 1);
  sj_ir_val j = sj_ir_reg_val(b->f, loop->iter);
  loop->cond = sj_irb_setp(b, SJ_CMP_LT, j, end);
  b->cur = &loop->body;
  long weight = l->weight;
  isl_ast_node *child = isl_ast_node_for_get_body(node);
  for (long g = 0; g < group && sj_lw_going(l); g++) {
    /* level 3's copies k, k % group == g */
    l->weight = weight * (whole  ? whole / group
                          : rest ? copies / group
                                 : (copies - g + group - 1) / group);
    group_copy(l, child, id, j, g * width, lim, g && !whole && !rest, lo, cut, body);
  }
  sj_irb_leave(b, pos);
  for (long g = 0; whole && g < count - whole && sj_lw_going(l); g++) {
    l->weight = weight;
    group_copy(l, child, id, sj_ir_int(SJ_IR_S64, first.i + whole + g), 0, lim, 0, lo, cut, body);
  }
  if (rest && sj_lw_going(l)) {
    l->weight = weight * (copies % group);
    sj_ir_node *tail = sj_irb_loop(b, j, sj_ir_int(SJ_IR_S64, width));
    pos = sj_irb_enter(b, &tail->head, 1);
    sj_ir_val k = sj_ir_reg_val(b->f, tail->iter);
    tail->cond = sj_irb_setp(b, SJ_CMP_LT, k, lim);
    b->cur = &tail->body;
    group_copy(l, child, id, k, 0, lim, 0, lo, cut, body);
    sj_irb_leave(b, pos);
  }
  isl_ast_node_free(child);
  l->weight = weight;
}

/* Notes the window of values c .. last of a spread loop along block dimension dim whose start
 * has the terms given (sj_lower.reach). */
static void note_reach(sj_lower *l, int dim, unsigned long terms, long c, long last) {
  int i = 0;
  while (i < l->nreach && (l->reach[i].dim != dim || l->reach[i].terms != terms)) i++;
  if (i == (int)(sizeof l->reach / sizeof *l->reach)) return;
  if (i == l->nreach) l->reach[l->nreach++] = (struct sj_reach){dim, terms, c, last};
  if (c < l->reach[i].lo) l->reach[i].lo = c;
  if (last > l->reach[i].hi) l->reach[i].hi = last;
}

/* The anchor of the windows along dim whose starts have these terms: the least first value
 * the kernel's first lowering saw where all of them fit in the width threads (every window one
 * copy from it, its thread's value the same register in every step: a split tile's window,
 * which moves by the slope from step to step, cost 4 instructions a step anchored anew), else
 * c, this window's. */
static long fitting_anchor(const sj_lower *l, int dim, unsigned long terms, long width, long c) {
  for (int i = 0; i < l->nseen; i++)
    if (l->seen[i].dim == dim && l->seen[i].terms == terms)
      return l->seen[i].hi - l->seen[i].lo < width && l->seen[i].lo <= c ? l->seen[i].lo : c;
  return c;
}

/* The copies of a spread loop of trip t over the width threads of block dimension dim, bound
 * to the tile rather than to the window: the window starts at A + c, A the terms of its start
 * (in a full tile's steps the same in every step, the step's offset in c) and thread r's
 * values are A + r + k * width, r its offset from A modulo width. Its addresses are then the
 * same registers plus constants in every step, computed once for the tile, and a copy's guard
 * compares r with constants (once for every step that needs it): the window's start read
 * from each step's bounds cost some 8 instructions a step and dimension (split tiles, whose
 * windows move with the step). */
static void anchored(sj_lower *l, __isl_keep isl_ast_node *node, __isl_keep isl_id *id,
                     const trip *t, int dim, long width, sj_lw_fn body) {
  sj_irb *b = &l->b;
  long c = t->start.i;
  unsigned long terms = 0;
  sj_ir_val a = t->base ? sj_lw_iexpr_terms(l, t->base, &c, &terms) : sj_ir_int(SJ_IR_S64, 0);
  /* from A + c0, c0 the constant of the first window with the same terms A (each step's in a
   * register of its own where the step is behind a guard: common values computed once later,
   * astgen/cse.c): the windows of a split tile's steps shrink, and those that grow take a copy
   * more at most (guarded); where the kernel's statements would then be too many (reanchor),
   * from this window where it would */
  int i = 0;
  while (i < l->nanchors && (l->anchors[i].dim != dim || l->anchors[i].terms != terms)) i++;
  if (i == l->nanchors && i < (int)(sizeof l->anchors / sizeof *l->anchors))
    l->anchors[l->nanchors++] =
        (struct sj_anchor){dim, terms, fitting_anchor(l, dim, terms, width, c)};
  long c0 = i < l->nanchors ? l->anchors[i].c : c;
  if (sj_floor_div(c - c0 + t->n - 1, width) - sj_floor_div(c - c0, width) >=
      (t->n + width - 1) / width) {
    l->grew = 1;
    if (l->reanchor) c0 = c;
  }
  if (i < l->nanchors) l->anchors[i].c = c0;
  a = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, a, sj_ir_int(SJ_IR_S64, c0));
  c -= c0;
  sj_ir_val r = sj_lw_floor_mod(l, sj_irb_op(b, SJ_IR_SUB, SJ_IR_S64, thread_id(b, dim), a), width);
  sj_ir_val first = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, a, r);
  isl_ast_expr *base = NULL; /* A + c0, for the ranges of the write-through's guards */
  if (t->base) {
    isl_ctx *ctx = isl_ast_expr_get_ctx(t->base);
    base = isl_ast_expr_sub(isl_ast_expr_copy(t->base), sj_ast_int(ctx, c));
  }
  long last = c + t->n - 1; /* r + k * width lies in c .. last */
  isl_ast_node *child = isl_ast_node_for_get_body(node);
  for (long k = sj_floor_div(c, width); k * width <= last && sj_lw_going(l); k++) {
    sj_ir_val go = {0};
    if (c - k * width > 0) go = sj_irb_setp(b, SJ_CMP_GE, r, sj_ir_int(SJ_IR_S64, c - k * width));
    if (last - k * width < width - 1)
      go = both(l, go, sj_irb_setp(b, SJ_CMP_LE, r, sj_ir_int(SJ_IR_S64, last - k * width)));
    if (t->bound.kind != SJ_V_NONE) {
      sj_ir_val v = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, first, sj_ir_int(SJ_IR_S64, k * width));
      go = both(l, go, sj_irb_setp(b, t->strict ? SJ_CMP_LT : SJ_CMP_LE, v, t->bound));
    }
    sj_irb_pos pos = {0};
    if (go.kind != SJ_V_NONE) pos = sj_irb_enter(b, &sj_irb_if(b, go)->then, 0);
    sj_lw_bind(l, id, first, k * width);
    l->binds[l->nbinds - 1].copies = sj_floor_div(last, width) > sj_floor_div(c, width);
    sj_lw_bind_range(l, base, c0, r, width - 1);
    body(l, child);
    sj_lw_unbind(l);
    if (go.kind != SJ_V_NONE) sj_irb_leave(b, pos);
  }
  isl_ast_node_free(child);
  isl_ast_expr_free(base);
}

int sj_lw_unroll_full(sj_lower *l, __isl_keep isl_ast_node *node, int threads_dim, sj_lw_fn body) {
  int spread_later = l->full_level == 2 && threads_dim >= 0; /* counted for level 3 */
  if (!l->in_full || (l->full_level < (threads_dim < 0 ? 2 : 3) && !spread_later)) return 0;
  sj_irb *b = &l->b;
  isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
  isl_id *id = isl_ast_expr_get_id(it);
  isl_ast_expr_free(it);
  long width = threads_dim < 0 ? 1 : (long)b->f->block[threads_dim];
  trip t;
  /* a loop spread over the threads by a step over 1 stays a loop */
  int done =
      trip_of(l, node, id, &t) && (t.step == 1 || width == 1) &&
      (t.n + width * t.step - 1) / (width * t.step) <= (width == 1 ? MAX_STEP_COPIES : MAX_COPIES);
  /* level 2 keeps spread loops, but unrolls one a thread runs at most once (a split tile's row
   * of 158 points over 160 threads: its body behind a guard, no more code than the loop) and,
   * innermost, those of up to sj_lower.group copies; innermost ones of more run grouped
   * (plain_spread: none of this, where it needs more registers than the kernel may hold:
   * astgen/lower.c) */
  long copies = (t.n + width * t.step - 1) / (width * t.step);
  int group = 0, copy = done && copies_only(node);
  if (done && width > 1 && !copy && !t.lower && !t.upper && (t.base || t.start.kind == SJ_V_INT)) {
    long c = t.start.i;
    unsigned long terms = 0;
    if (t.base) sj_lw_iexpr_terms(l, t.base, &c, &terms);
    note_reach(l, threads_dim, terms, c, c + t.n - 1);
  }
  /* a statement's points along a dimension other than x (a warp's threads all along x) in
   * blocks of consecutive ones (sj_kernel.blocked_rows), where a thread runs several and the
   * window is not cut: the neighbours a point reads are its thread's others' (a split tile's
   * rows over 8 threads: 9 shared loads a point of a 9-point stencil become 4); each copy's
   * guard then implies the one before, and what they load stays known to the next (nested) */
  int blocked = l->kernel && l->kernel->blocked_rows && done && width > 1 && copies > 1 &&
                threads_dim > 0 && !copy && !t.lower && !t.upper && b->f->block[0] % 32 == 0;
  if (copy && threads_dim < 0 && l->copy_run * copies > COPY_BATCH) done = 0, l->roll_copies = 1;
  if (done && spread_later) {
    int innermost = 0;
    if (!l->plain_spread && copies > 1) {
      isl_ast_node *child = isl_ast_node_for_get_body(node);
      innermost = !holds_loop(child);
      isl_ast_node_free(child);
    }
    group = innermost && copies > l->group;
    done = !l->plain_spread && (copies == 1 || innermost) && !group;
    l->spread_copies = done || group ? 0 : copies;
    l->grouped += done || group;
    l->ngroups += group;
    l->rolled += !done && !group;
  }
  if (group) grouped(l, node, id, &t, threads_dim, width, blocked, body);
  /* a window of a statement's points, not cut: its copies bound to the tile */
  int anchor = done && width > 1 && !copy && !t.lower && !t.upper && !blocked &&
               l->spread_align.kind == SJ_V_NONE && (t.base || t.start.kind == SJ_V_INT);
  if (anchor) {
    anchored(l, node, id, &t, threads_dim, width, body);
  } else if (done) {
    /* this thread's first iteration from the window's start, r: the values congruent to its id,
     * or its block of consecutive ones; the copies stride apart */
    sj_ir_val r = sj_ir_int(SJ_IR_S64, 0), first = t.start;
    long stride = blocked ? 1 : width * t.step, span = blocked ? (width - 1) * copies : width - 1;
    long c = 0; /* the start's constant, in the copies' offsets (blocked) */
    isl_ast_expr *base = isl_ast_expr_copy(t.base); /* of first - r */
    if (blocked) { /* first from the start's terms: the same in steps whose windows move */
      if (t.base) {
        first = sj_lw_iexpr_terms(l, t.base, &c, NULL);
        base = isl_ast_expr_sub(base, sj_ast_int(isl_ast_expr_get_ctx(base), c));
      } else if (t.start.kind == SJ_V_INT) {
        c = t.start.i, first = sj_ir_int(SJ_IR_S64, 0);
      }
      r = sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, thread_id(b, threads_dim),
                    sj_ir_int(SJ_IR_S64, copies));
      first = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, first, r);
    } else if (width > 1) {
      first = sj_lw_spread_first(l, thread_id(b, threads_dim), first, sj_ir_int(SJ_IR_S64, 1),
                                 width, &r);
    }
    /* where bounds cut a constant window: nothing when they leave it empty (the blocks of a
     * launch without work), else a value v passes when v - lo <= hi - lo, unsigned */
    sj_ir_val lo, hi, window = {0}, minus_lo = {0};
    sj_irb_pos outer = {0};
    int cut = window_bounds(l, &t, &lo, &hi);
    if (cut) {
      outer = sj_irb_enter(b, &sj_irb_if(b, sj_irb_setp(b, SJ_CMP_LE, lo, hi))->then, 0);
      window = sj_irb_op(b, SJ_IR_SUB, SJ_IR_U64, hi, lo);
      minus_lo =
          sj_irb_op(b, SJ_IR_NEG, SJ_IR_U64, lo, (sj_ir_val){0}); /* unsigned even as v + 0 */
    }
    long copy_run = l->copy_run;
    if (copy) l->copy_run *= copies;
    isl_ast_node *child = isl_ast_node_for_get_body(node);
    int nested = 0;
    sj_irb_pos open[MAX_COPIES];
    for (long k = 0; k < copies && sj_lw_going(l); k++) {
      sj_ir_val v = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, first, sj_ir_int(SJ_IR_S64, c + k * stride));
      sj_ir_cmp below = t.strict ? SJ_CMP_LT : SJ_CMP_LE;
      sj_ir_val go =
          t.bound.kind != SJ_V_NONE ? sj_irb_setp(b, below, v, t.bound)
          : cut ? sj_irb_setp(b, SJ_CMP_LE, sj_irb_op(b, SJ_IR_ADD, SJ_IR_U64, minus_lo, v), window)
                : (sj_ir_val){0};
      if (span + k * stride >= t.n && t.bound.kind == SJ_V_NONE) /* past the window for some */
        go = both(l, go, sj_irb_setp(b, SJ_CMP_LT, r, sj_ir_int(SJ_IR_S64, t.n - k * stride)));
      sj_irb_pos pos = {0};
      if (go.kind != SJ_V_NONE) pos = sj_irb_enter(b, &sj_irb_if(b, go)->then, 0);
      sj_lw_bind(l, id, first, c + k * stride);
      l->binds[l->nbinds - 1].copies = copies > 1;
      if (width > 1 && (t.base || t.start.kind == SJ_V_INT))
        sj_lw_bind_range(l, base, t.start.i - c, r, span);
      body(l, child);
      sj_lw_unbind(l);
      if (go.kind != SJ_V_NONE && blocked)
        open[nested++] = pos;
      else if (go.kind != SJ_V_NONE)
        sj_irb_leave(b, pos);
    }
    while (nested) sj_irb_leave(b, open[--nested]);
    isl_ast_node_free(child);
    isl_ast_expr_free(base);
    l->copy_run = copy_run;
    if (cut) sj_irb_leave(b, outer);
  }
  isl_ast_expr_list_free(t.lower);
  isl_ast_expr_list_free(t.upper);
  isl_ast_expr_free(t.base);
  isl_id_free(id);
  return done || group;
}

void sj_lw_full_tiles(sj_lower *l, __isl_keep isl_ast_node *mark, sj_lw_fn body) {
  sj_irb *b = &l->b;
  int outer = l->ran_full;
  l->versions++;
  l->ran_full = sj_irb_var(b, SJ_IR_S32, NULL);
  sj_irb_assign(b, l->ran_full, sj_ir_int(SJ_IR_S32, 0));
  isl_ast_node *child = isl_ast_node_mark_get_node(mark);
  body(l, child);
  isl_ast_node_free(child);
  l->ran_full = outer;
}

void sj_lw_version(sj_lower *l, __isl_keep isl_ast_node *mark, int kind, sj_lw_fn body) {
  sj_irb *b = &l->b;
  if (kind == 1 && l->full_level == 0) return;
  l->unrollable++;
  isl_ast_node *child = isl_ast_node_mark_get_node(mark);
  if (kind) {
    if (kind == 1) sj_irb_assign(b, l->ran_full, sj_ir_int(SJ_IR_S32, 1));
    l->in_full++;
    body(l, child);
    l->in_full--;
  } else if (l->full_level == 0) {
    body(l, child);
  } else {
    sj_ir_val skip =
        sj_irb_setp(b, SJ_CMP_EQ, sj_ir_reg_val(b->f, l->ran_full), sj_ir_int(SJ_IR_S32, 0));
    sj_ir_node *n = sj_irb_if(b, skip);
    sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
    l->in_full += l->unroll_any;
    body(l, child);
    l->in_full -= l->unroll_any;
    sj_irb_leave(b, pos);
  }
  isl_ast_node_free(child);
}
