/* Tests decided by the ranges of integers: a loop's iterator lies between its first value and
 * its bound inside the loop, a thread id below the block's size, a block id below the grid's
 * (per-step kernels), a value inside a branch where the branch's comparisons say so, and a value
 * that adds a constant to one of them (or multiplies, divides or masks it) in the range that
 * gives. A comparison that holds (or fails) over the whole range is replaced by what it gives:
 * its branch taken or dropped, its guard gone, the predicates combined with it simplified.
 *
 * Why: the write-through guards of a full tile's steps (astgen/live_ast.c) test each point's
 * position against the tile's edges; in an unrolled full tile most of those tests are decided
 * by the loop's own bounds, yet they cost 4 instructions a point (heat-2d hybrid tiles). isl
 * cannot see them: the loop's first value is a constant only after the lowering folds it. */
#include "astgen/ir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct span {
  long lo, hi;
} span;

typedef struct saved {
  int reg;
  char had;
  span was;
} saved;

typedef struct ranges {
  sj_ir_func *f;
  span *at;              /* by register: the values it may hold, where has[reg] */
  char *has;             /* by register: 1 where at[reg] is known */
  signed char *truth;    /* by predicate: 1 always true, 0 always false, -1 not known */
  int *same;             /* by predicate: another (never reassigned) predicate equal to it, or 0 */
  const sj_ir_ins **def; /* by predicate: the comparison, and, or or not that defines it */
  saved *log;            /* ranges narrowed in a scope, restored when it ends */
  /* A kernel's grid where its block ids bound its tests: not in a time-tiled kernel (one with
   * barriers), whose tests of its tile's place in the grid shape its steps' code, which the
   * passes after this one share better as it is (1-D and 2-D split tiles ran up to 1.2 times
   * the instructions with those tests folded). */
  unsigned grid[3];
  int nlog, caplog;
} ranges;

static int tracked(sj_ir_type t) {
  return t == SJ_IR_S32 || t == SJ_IR_S64;
}

static int fits(sj_ir_type t, long v) {
  return t == SJ_IR_S64 || (v >= INT_MIN && v <= INT_MAX);
}

static int span_of(const ranges *r, sj_ir_val v, span *s) {
  if (v.kind == SJ_V_INT) return s->lo = s->hi = v.i, 1;
  if (v.kind != SJ_V_REG || !r->has[v.reg]) return 0;
  *s = r->at[v.reg];
  return 1;
}

static void set_span(ranges *r, int reg, span s) {
  if (r->nlog == r->caplog) {
    r->caplog = r->caplog ? 2 * r->caplog : 64;
    r->log = realloc(r->log, (size_t)r->caplog * sizeof *r->log);
    if (!r->log) abort();
  }
  r->log[r->nlog++] = (saved){reg, r->has[reg], r->at[reg]};
  r->at[reg] = s;
  r->has[reg] = 1;
}

static void restore(ranges *r, int mark) {
  while (r->nlog > mark) {
    saved *s = &r->log[--r->nlog];
    r->has[s->reg] = s->had;
    r->at[s->reg] = s->was;
  }
}

static int is_value(const ranges *r, int reg) {
  return reg && !r->f->regs[reg].is_var;
}

/* The range of dst = a op b, where both have one and nothing overflows the type. */
static int arith(sj_ir_op op, sj_ir_type t, span a, span b, span *out) {
  long lo, hi;
  switch (op) {
  case SJ_IR_ADD:
    if (__builtin_add_overflow(a.lo, b.lo, &lo) || __builtin_add_overflow(a.hi, b.hi, &hi))
      return 0;
    break;
  case SJ_IR_SUB:
    if (__builtin_sub_overflow(a.lo, b.hi, &lo) || __builtin_sub_overflow(a.hi, b.lo, &hi))
      return 0;
    break;
  case SJ_IR_MUL: {
    long p[4];
    if (__builtin_mul_overflow(a.lo, b.lo, &p[0]) || __builtin_mul_overflow(a.lo, b.hi, &p[1]) ||
        __builtin_mul_overflow(a.hi, b.lo, &p[2]) || __builtin_mul_overflow(a.hi, b.hi, &p[3]))
      return 0;
    lo = hi = p[0];
    for (int k = 1; k < 4; k++) lo = p[k] < lo ? p[k] : lo, hi = p[k] > hi ? p[k] : hi;
    break;
  }
  case SJ_IR_FDIV: /* by a positive constant */
    if (b.lo != b.hi || b.lo <= 0) return 0;
    lo = a.lo / b.lo - (a.lo % b.lo < 0), hi = a.hi / b.lo - (a.hi % b.lo < 0);
    break;
  case SJ_IR_BAND: /* with a non-negative value: at most it */
    if (b.lo < 0 && a.lo < 0) return 0;
    lo = 0, hi = b.lo < 0 ? a.hi : a.lo < 0 ? b.hi : a.hi < b.hi ? a.hi : b.hi;
    break;
  case SJ_IR_MIN:
    lo = a.lo < b.lo ? a.lo : b.lo, hi = a.hi < b.hi ? a.hi : b.hi;
    break;
  case SJ_IR_MAX:
    lo = a.lo > b.lo ? a.lo : b.lo, hi = a.hi > b.hi ? a.hi : b.hi;
    break;
  default:
    return 0;
  }
  if (!fits(t, lo) || !fits(t, hi)) return 0;
  *out = (span){lo, hi};
  return 1;
}

/* Whether a cmp b holds for every value of both ranges (1), for none (0), or not known (-1). */
static int decide(sj_ir_cmp cmp, span a, span b) {
  switch (cmp) {
  case SJ_CMP_LT:
    return a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1;
  case SJ_CMP_LE:
    return a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1;
  case SJ_CMP_GT:
    return decide(SJ_CMP_LT, b, a);
  case SJ_CMP_GE:
    return decide(SJ_CMP_LE, b, a);
  case SJ_CMP_EQ:
    return a.lo == a.hi && b.lo == b.hi && a.lo == b.lo ? 1 : a.hi < b.lo || b.hi < a.lo ? 0 : -1;
  case SJ_CMP_NE: {
    int eq = decide(SJ_CMP_EQ, a, b);
    return eq < 0 ? -1 : !eq;
  }
  }
  return -1;
}

static sj_ir_cmp negated(sj_ir_cmp c) {
  static const sj_ir_cmp neg[] = {
      [SJ_CMP_EQ] = SJ_CMP_NE, [SJ_CMP_NE] = SJ_CMP_EQ, [SJ_CMP_LT] = SJ_CMP_GE,
      [SJ_CMP_LE] = SJ_CMP_GT, [SJ_CMP_GT] = SJ_CMP_LE, [SJ_CMP_GE] = SJ_CMP_LT};
  return neg[c];
}

/* Narrows the range of register x where x cmp c holds (c a constant). */
static void narrow(ranges *r, int x, sj_ir_cmp cmp, long c) {
  span s;
  if (!r->has[x]) return;
  s = r->at[x];
  if (cmp == SJ_CMP_LT && c - 1 < s.hi) s.hi = c - 1;
  if (cmp == SJ_CMP_LE && c < s.hi) s.hi = c;
  if (cmp == SJ_CMP_GT && c + 1 > s.lo) s.lo = c + 1;
  if (cmp == SJ_CMP_GE && c > s.lo) s.lo = c;
  if (s.lo <= s.hi) set_span(r, x, s);
}

/* Inside the branch where predicate p is (holds), what its comparisons say of their registers:
 * both sides of an and that holds, of an or that fails. */
static void assume(ranges *r, int p, int holds) {
  const sj_ir_ins *c = r->def[p];
  if (!c) return;
  if (c->op == SJ_IR_NOT && c->a.kind == SJ_V_REG) return assume(r, c->a.reg, !holds);
  if (c->op == SJ_IR_AND || c->op == SJ_IR_OR) {
    if (holds != (c->op == SJ_IR_AND)) return;
    if (c->a.kind == SJ_V_REG) assume(r, c->a.reg, holds);
    if (c->b.kind == SJ_V_REG) assume(r, c->b.reg, holds);
    return;
  }
  sj_ir_cmp cmp = holds ? c->cmp : negated(c->cmp);
  if (c->cmp == SJ_CMP_EQ || c->cmp == SJ_CMP_NE || c->red) return;
  if (c->a.kind == SJ_V_REG && c->b.kind == SJ_V_INT) narrow(r, c->a.reg, cmp, c->b.i);
}

static int resolve(const ranges *r, int reg) {
  while (reg && r->same[reg]) reg = r->same[reg];
  return reg;
}

static void resolve_val(const ranges *r, sj_ir_val *v) {
  if (v->kind == SJ_V_REG) v->reg = resolve(r, v->reg);
}

static int truth_of(const ranges *r, sj_ir_val v) {
  return v.kind == SJ_V_REG && v.type == SJ_IR_PRED ? r->truth[v.reg] : -1;
}

/* What ins computes, where its operands' ranges tell. */
static void learn(ranges *r, sj_ir_ins *ins) {
  int d = ins->dst;
  if (!is_value(r, d) || ins->guard) return;
  span a = {0, 0}, b = {0, 0}, s;
  if (ins->op == SJ_IR_SETP && tracked(ins->type)) {
    if (ins->a.kind == SJ_V_REG) r->def[d] = ins;
    if (span_of(r, ins->a, &a) && span_of(r, ins->b, &b)) r->truth[d] = decide(ins->cmp, a, b);
    return;
  }
  if (ins->op == SJ_IR_AND || ins->op == SJ_IR_OR) {
    r->def[d] = ins;
    int absorbing = ins->op == SJ_IR_OR; /* true for OR, false for AND */
    int ta = truth_of(r, ins->a), tb = truth_of(r, ins->b);
    if (ta == absorbing || tb == absorbing)
      r->truth[d] = absorbing;
    else if (ta == !absorbing && tb == !absorbing)
      r->truth[d] = !absorbing;
    else if (ta == !absorbing && ins->b.kind == SJ_V_REG && is_value(r, ins->b.reg))
      r->same[d] = ins->b.reg;
    else if (tb == !absorbing && ins->a.kind == SJ_V_REG && is_value(r, ins->a.reg))
      r->same[d] = ins->a.reg;
    return;
  }
  if (ins->op == SJ_IR_NOT) {
    r->def[d] = ins;
    int ta = truth_of(r, ins->a);
    if (ta >= 0) r->truth[d] = !ta;
    return;
  }
  if (!tracked(ins->type) || r->f->regs[d].type != ins->type) return;
  if ((ins->op == SJ_IR_MOV || (ins->op == SJ_IR_CVT && tracked(ins->a.type))) &&
      span_of(r, ins->a, &s) && fits(ins->type, s.lo) && fits(ins->type, s.hi))
    set_span(r, d, s);
  int known_a = span_of(r, ins->a, &a), known_b = span_of(r, ins->b, &b);
  if (ins->op == SJ_IR_BAND && (known_a || known_b)) { /* a mask bounds the unknown side */
    if (!known_a) a = (span){LONG_MIN, LONG_MAX};
    if (!known_b) b = (span){LONG_MIN, LONG_MAX};
    known_a = known_b = 1;
  }
  if (known_a && known_b && arith(ins->op, ins->type, a, b, &s)) set_span(r, d, s);
  if (ins->op == SJ_IR_SPECIAL && ins->imm <= SJ_SPECIAL_CTAID_Z && r->f->kind == SJ_FUNC_KERNEL) {
    /* every launch of a kernel has its block, and its grid (r->grid) */
    int tid = ins->imm <= SJ_SPECIAL_TID_Z;
    unsigned size = tid ? r->f->block[ins->imm] : r->grid[ins->imm - SJ_SPECIAL_CTAID_X];
    if (size > 0) set_span(r, d, (span){0, (long)size - 1});
  }
}

/* The range of a loop's iterator in its body: from its first value to its bound, where its
 * head tests it against a bound and its step is a constant toward that bound. */
static void iterator_range(ranges *r, const sj_ir_node *loop) {
  if (loop->cond.kind != SJ_V_REG || loop->step.kind != SJ_V_INT || !loop->step.i) return;
  const sj_ir_ins *c = r->def[loop->cond.reg];
  span first, bound;
  if (!c || c->op != SJ_IR_SETP || c->a.kind != SJ_V_REG || c->a.reg != loop->iter ||
      !tracked(c->type) || !r->f->regs[loop->iter].is_iter || !span_of(r, loop->init, &first) ||
      !span_of(r, c->b, &bound))
    return;
  span s;
  if (loop->step.i > 0 && (c->cmp == SJ_CMP_LT || c->cmp == SJ_CMP_LE))
    s = (span){first.lo, bound.hi - (c->cmp == SJ_CMP_LT)};
  else if (loop->step.i < 0 && (c->cmp == SJ_CMP_GT || c->cmp == SJ_CMP_GE))
    s = (span){bound.lo + (c->cmp == SJ_CMP_GT), first.hi};
  else
    return;
  /* from a constant first value, the iterator takes only the values a whole number of steps
   * from it */
  long step = loop->step.i, gap;
  if (first.lo == first.hi && s.lo <= s.hi && !__builtin_sub_overflow(s.hi, s.lo, &gap)) {
    if (step > 0)
      s.hi = s.lo + gap / step * step;
    else
      s.lo = s.hi - gap / -step * -step;
  }
  if (s.lo <= s.hi) set_span(r, loop->iter, s);
}

static void visit(ranges *r, sj_ir_block *b);

/* Replaces node i of b by the nodes of block from (which it empties). */
static void splice(sj_ir_block *b, int i, sj_ir_block *from) {
  sj_ir_node *n = b->v[i];
  memmove(b->v + i, b->v + i + 1, (size_t)(b->n - i - 1) * sizeof *b->v);
  b->n--;
  for (int k = 0; k < from->n; k++) sj_ir_block_insert(b, i + k, from->v[k]);
  from->n = 0;
  sj_ir_node_free(n);
}

static void visit(ranges *r, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      sj_ir_ins *ins = &n->ins;
      resolve_val(r, &ins->a);
      resolve_val(r, &ins->b);
      resolve_val(r, &ins->c);
      for (int k = 0; k < ins->nargs; k++) resolve_val(r, &ins->args[k]);
      ins->guard = resolve(r, ins->guard);
      int g = ins->guard ? r->truth[ins->guard] : -1;
      if (g == 1) ins->guard = 0;
      if (g == 0 && !ins->dst) { /* never runs */
        splice(b, i--, &(sj_ir_block){0});
        continue;
      }
      if (ins->op == SJ_IR_SELP && truth_of(r, ins->c) >= 0) {
        ins->op = SJ_IR_MOV;
        if (!truth_of(r, ins->c)) ins->a = ins->b;
        ins->b = ins->c = (sj_ir_val){0};
      }
      learn(r, ins);
      continue;
    }
    resolve_val(r, &n->cond);
    int mark = r->nlog;
    if (n->kind == SJ_IR_IF) {
      int t = truth_of(r, n->cond);
      if (t >= 0) { /* the branch taken, in place of the if */
        splice(b, i--, t ? &n->then : &n->other);
        continue;
      }
      assume(r, n->cond.reg, 1);
      visit(r, &n->then);
      restore(r, mark);
      assume(r, n->cond.reg, 0);
      visit(r, &n->other);
      restore(r, mark);
      continue;
    }
    resolve_val(r, &n->init);
    visit(r, &n->head);
    iterator_range(r, n);
    visit(r, &n->body);
    visit(r, &n->latch);
    restore(r, mark);
  }
}

static void find_barrier(sj_ir_ins *ins, void *user) {
  *(int *)user |= ins->op == SJ_IR_BARRIER;
}

static ranges ranges_new(const sj_ir_func *f) {
  size_t n = (size_t)f->nregs + 1;
  ranges r = {.f = (sj_ir_func *)f,
              .at = calloc(n, sizeof(span)),
              .has = calloc(n, 1),
              .truth = malloc(n),
              .same = calloc(n, sizeof(int)),
              .def = calloc(n, sizeof(const sj_ir_ins *))};
  if (!r.at || !r.has || !r.truth || !r.same || !r.def) abort();
  memset(r.truth, -1, n);
  int tiled = 0;
  sj_ir_foreach_ins((sj_ir_block *)&f->body, find_barrier, &tiled);
  if (!tiled) memcpy(r.grid, f->grid, sizeof r.grid);
  return r;
}

static void ranges_free(ranges *r) {
  free(r->at);
  free(r->has);
  free(r->truth);
  free(r->same);
  free(r->def);
  free(r->log);
}

void sj_ir_fold_ranges(sj_ir_func *f) {
  ranges r = ranges_new(f);
  visit(&r, &f->body);
  ranges_free(&r);
}

void sj_ir_top_spans(const sj_ir_func *f, long *lo, long *hi) {
  ranges r = ranges_new(f);
  for (int i = 0; i < f->body.n; i++)
    if (f->body.v[i]->kind == SJ_IR_INS) learn(&r, &f->body.v[i]->ins);
  for (int reg = 0; reg < f->nregs; reg++) {
    lo[reg] = r.has[reg] ? r.at[reg].lo : 1;
    hi[reg] = r.has[reg] ? r.at[reg].hi : 0;
  }
  ranges_free(&r);
}
