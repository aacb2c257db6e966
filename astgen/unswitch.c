/* A kernel's code in two versions where the thread's position decides most of its tests: a
 * copy for the threads whose position lies in the range that decides every such test, in which
 * the ranges (astgen/range.c) fold them away, and the code as it was for the others.
 *
 * Why: a kernel written with its boundary in its body (an image filter that skips the
 * neighbours outside the image, Rodinia's hotspot with a branch per corner and edge of the
 * chip) tests every point against the edges, though only the few threads at an edge see a test
 * differ from the interior's. isl cannot split those instances: the tests are the statement's
 * own code, and the local loops around them are unrolled after it.
 *
 * A test is a comparison of a value with a constant, the value a position (a register that
 * straight-line code at the top of the kernel computes from block and thread ids) plus a
 * constant; its cuts are where the comparison changes along that position. Each position's
 * version range is the widest between its cuts. Kernels with barriers or shuffles keep one
 * version: their threads must all take the same path. */
#include "astgen/ir.h"

#include "base/arith.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* positions with tests, cuts each, and the most instructions a kernel may have to be copied */
enum { MAX_ROOTS = 6, MAX_CUTS = 32, MAX_CHAIN = 16, MAX_INS = 4096 };

typedef struct root {
  int reg;
  long lo, hi;        /* the values it takes */
  long cut[MAX_CUTS]; /* values v where some test differs between v - 1 and v */
  int ncut;
  int tests; /* the uses of tests that change within lo .. hi */
  int lanes; /* it varies with the lane (lane_varies) */
  long a, b; /* the copy's range: the widest between cuts */
} root;

typedef struct unswitch {
  sj_ir_func *f;
  sj_ir_ins **def; /* by register: the instruction that assigns it, where one does */
  int *ndefs;      /* by register: the instructions and loops that assign it */
  char *top;       /* by register: assigned at the top of the body, unguarded */
  long *lo, *hi;   /* by register: its values where straight-line code at the top computes it */
  int *uses;       /* by register: its readers */
  int nins, shared_path; /* instructions; whether some are barriers or shuffles */
  root roots[MAX_ROOTS];
  int nroots;
} unswitch;

static void scan(unswitch *u, sj_ir_block *b, int top) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      sj_ir_ins *ins = &n->ins;
      u->nins++;
      if (ins->op == SJ_IR_BARRIER || ins->op == SJ_IR_SHFL) u->shared_path = 1;
      if (!ins->dst) continue;
      u->ndefs[ins->dst]++;
      u->def[ins->dst] = ins;
      u->top[ins->dst] = top && !ins->guard;
      continue;
    }
    if (n->kind == SJ_IR_LOOP) u->ndefs[n->iter] += 2;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) scan(u, blocks[k], 0);
  }
}

static int position_type(sj_ir_type t) {
  return t == SJ_IR_S32 || t == SJ_IR_S64;
}

/* The instruction that alone assigns reg, or NULL. */
static const sj_ir_ins *only_def(const unswitch *u, int reg) {
  return u->ndefs[reg] == 1 && !u->f->regs[reg].is_var ? u->def[reg] : NULL;
}

/* Whether reg's value can be computed again in front of the kernel's code. */
static int recomputable(const unswitch *u, int reg, int depth) {
  const sj_ir_ins *d = only_def(u, reg);
  if (!d || !u->top[reg] || depth > MAX_CHAIN || !sj_ir_is_pure(d) || d->nargs) return 0;
  const sj_ir_val *v[3] = {&d->a, &d->b, &d->c};
  for (int k = 0; k < 3; k++)
    if (v[k]->kind == SJ_V_REG && !recomputable(u, v[k]->reg, depth + 1)) return 0;
  return 1;
}

/* Whether reg's value varies with the thread's lane: a warp's threads then take both versions
 * where it straddles the copy's range. */
static int lane_varies(const unswitch *u, int reg, int depth) {
  const sj_ir_ins *d = only_def(u, reg);
  if (!d || depth > MAX_CHAIN) return 0;
  if (d->op == SJ_IR_SPECIAL) return d->imm == SJ_SPECIAL_TID_X;
  const sj_ir_val *v[3] = {&d->a, &d->b, &d->c};
  for (int k = 0; k < 3; k++)
    if (v[k]->kind == SJ_V_REG && lane_varies(u, v[k]->reg, depth + 1)) return 1;
  return 0;
}

/* Records cut v of r where it lies inside r's values; whether it does. */
static int add_cut(root *r, long v) {
  if (v <= r->lo || v > r->hi) return 0;
  for (int k = 0; k < r->ncut; k++)
    if (r->cut[k] == v) return 1;
  if (r->ncut == MAX_CUTS)
    r->lo = r->hi + 1; /* too many: no copy for it */
  else
    r->cut[r->ncut++] = v;
  return 1;
}

static sj_ir_cmp swapped(sj_ir_cmp c) {
  static const sj_ir_cmp sw[] = {
      [SJ_CMP_EQ] = SJ_CMP_EQ, [SJ_CMP_NE] = SJ_CMP_NE, [SJ_CMP_LT] = SJ_CMP_GT,
      [SJ_CMP_LE] = SJ_CMP_GE, [SJ_CMP_GT] = SJ_CMP_LT, [SJ_CMP_GE] = SJ_CMP_LE};
  return sw[c];
}

/* A comparison of a position plus a constant with a constant: its cuts. */
static void test(sj_ir_ins *ins, void *user) {
  unswitch *u = user;
  if (ins->op != SJ_IR_SETP || !position_type(ins->type) || ins->red) return;
  sj_ir_cmp cmp = ins->cmp;
  sj_ir_val x = ins->a, c = ins->b;
  if (x.kind == SJ_V_INT && c.kind == SJ_V_REG) x = ins->b, c = ins->a, cmp = swapped(cmp);
  if (x.kind != SJ_V_REG || c.kind != SJ_V_INT) return;
  long k = 0; /* the value is reg + k */
  int reg = x.reg;
  for (int depth = 0; depth < MAX_CHAIN; depth++) {
    const sj_ir_ins *d = only_def(u, reg);
    if (!d || !position_type(d->type)) break;
    if (d->op == SJ_IR_MOV && d->a.kind == SJ_V_REG) {
      reg = d->a.reg;
    } else if (d->op == SJ_IR_CVT && d->a.kind == SJ_V_REG && position_type(d->a.type) &&
               u->lo[d->a.reg] >= INT_MIN && u->hi[d->a.reg] <= INT_MAX) { /* fits both */
      reg = d->a.reg;
    } else if ((d->op == SJ_IR_ADD || d->op == SJ_IR_SUB) && d->a.kind == SJ_V_REG &&
               d->b.kind == SJ_V_INT) {
      if (d->op == SJ_IR_ADD ? __builtin_add_overflow(k, d->b.i, &k)
                             : __builtin_sub_overflow(k, d->b.i, &k))
        return;
      reg = d->a.reg;
    } else if (d->op == SJ_IR_ADD && d->b.kind == SJ_V_REG && d->a.kind == SJ_V_INT) {
      if (__builtin_add_overflow(k, d->a.i, &k)) return;
      reg = d->b.reg;
    } else {
      break;
    }
  }
  if (u->lo[reg] > u->hi[reg] || !recomputable(u, reg, 0)) return;
  root *r = NULL;
  for (int i = 0; i < u->nroots && !r; i++)
    if (u->roots[i].reg == reg) r = &u->roots[i];
  if (!r) {
    if (u->nroots == MAX_ROOTS) return;
    r = &u->roots[u->nroots++];
    *r = (root){.reg = reg, .lo = u->lo[reg], .hi = u->hi[reg], .lanes = lane_varies(u, reg, 0)};
  }
  long v; /* reg + k cmp c: reg cmp v */
  if (__builtin_sub_overflow(c.i, k, &v) || v == LONG_MAX) return;
  /* reg < v and reg >= v change at v, reg <= v and reg > v at v + 1, equality at both */
  int at_v = cmp != SJ_CMP_LE && cmp != SJ_CMP_GT, after_v = cmp != SJ_CMP_LT && cmp != SJ_CMP_GE;
  int changes = (at_v && add_cut(r, v)) | (after_v && add_cut(r, v + 1));
  if (changes) r->tests += u->uses[ins->dst];
}

static int by_value(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* r's copy range, the widest between its cuts; the comparisons its guard needs. */
static int widest(root *r) {
  qsort(r->cut, (size_t)r->ncut, sizeof *r->cut, by_value);
  long from = r->lo;
  r->a = r->lo, r->b = r->lo - 1;
  for (int k = 0; k <= r->ncut; k++) {
    long to = k < r->ncut ? r->cut[k] - 1 : r->hi;
    if (to - from > r->b - r->a) r->a = from, r->b = to;
    from = to + 1;
  }
  return (r->a > r->lo) + (r->b < r->hi);
}

/* The warps whose 32 lanes all lie in a .. b (a position that varies with the lane counts them
 * from a multiple of 32: block id times a width of whole warps, plus the lane's). */
static long whole_warps(long a, long b) {
  long n = sj_floor_div(b - 31, 32) - sj_ceil_div(a, 32) + 1;
  return n > 0 ? n : 0;
}

/* The guard's comparisons where a copy may pay: it runs in most threads (most warps whole), and
 * some of the tests that it decides are read more than once; 0 where it does not. The copy is then
 * made, and kept where it saves enough (judge). */
static int promising(unswitch *u) {
  double share = 1;
  int tests = 0, guard = 0;
  for (int i = 0; i < u->nroots; i++) {
    root *r = &u->roots[i];
    if (r->lo > r->hi || !r->ncut) continue;
    guard += widest(r);
    tests += r->tests;
    long all = r->lanes ? whole_warps(r->lo, r->hi + 31) : r->hi - r->lo + 1;
    long in = r->lanes ? whole_warps(r->a, r->b) : r->b - r->a + 1;
    share *= all > 0 ? (double)in / (double)all : 0;
  }
  return share >= 0.5 && tests > guard ? guard : 0;
}

/* The work of b that decides where its code goes: comparisons, their predicates, selections,
 * the moves that join two branches, and the branches themselves (two instructions each); a
 * loop's taken as LOOP_TRIPS iterations. */
enum { LOOP_TRIPS = 8 };
static long control(const sj_ir_block *b) {
  long n = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *x = b->v[i];
    if (x->kind == SJ_IR_INS) {
      sj_ir_op op = x->ins.op;
      n += op == SJ_IR_SETP || op == SJ_IR_AND || op == SJ_IR_OR || op == SJ_IR_NOT ||
           op == SJ_IR_SELP || op == SJ_IR_MOV;
    } else if (x->kind == SJ_IR_IF) {
      n += 2 + control(&x->then) + control(&x->other);
    } else {
      n += LOOP_TRIPS * (control(&x->head) + control(&x->body) + control(&x->latch));
    }
  }
  return n;
}

typedef struct copier {
  sj_ir_func *f;
  int *to;    /* by register: its register in the copy, or 0 where not yet given one */
  char *kept; /* by register: a position the copy reads from in front of it */
  const unswitch *u;
} copier;

static int fresh(sj_ir_func *f, int reg) {
  sj_ir_reg attrs = f->regs[reg];
  int n = sj_ir_new_reg(f, attrs.type, attrs.level);
  f->regs[n] = attrs;
  return n;
}

static int map_reg(copier *c, int reg) {
  if (!reg) return 0;
  if (!c->to[reg]) c->to[reg] = fresh(c->f, reg);
  return c->to[reg];
}

static void map_use(int *reg, void *user) {
  *reg = map_reg(user, *reg);
}

static void map_val(copier *c, sj_ir_val *v) {
  if (v->kind == SJ_V_REG) v->reg = map_reg(c, v->reg);
}

static void copy_block(copier *c, const sj_ir_block *from, sj_ir_block *to);

/* n with every register renamed; NULL for the assignment of a position, which the copy reads
 * from the guard's. */
static sj_ir_node *copy_node(copier *c, const sj_ir_node *n) {
  if (n->kind == SJ_IR_INS && c->kept[n->ins.dst]) return NULL;
  sj_ir_node *m = sj_ir_node_new(n->kind);
  m->ins = n->ins;
  if (n->kind == SJ_IR_INS) {
    if (n->ins.nargs) {
      m->ins.args = malloc((size_t)n->ins.nargs * sizeof *m->ins.args);
      if (!m->ins.args) abort();
      memcpy(m->ins.args, n->ins.args, (size_t)n->ins.nargs * sizeof *m->ins.args);
    }
    sj_ir_foreach_use(&m->ins, map_use, c);
    m->ins.dst = map_reg(c, n->ins.dst);
    return m;
  }
  m->iter = map_reg(c, n->iter);
  m->init = n->init, m->step = n->step, m->cond = n->cond;
  map_val(c, &m->init), map_val(c, &m->step), map_val(c, &m->cond);
  copy_block(c, &n->head, &m->head);
  copy_block(c, &n->body, &m->body);
  copy_block(c, &n->latch, &m->latch);
  copy_block(c, &n->then, &m->then);
  copy_block(c, &n->other, &m->other);
  return m;
}

static void copy_block(copier *c, const sj_ir_block *from, sj_ir_block *to) {
  for (int i = 0; i < from->n; i++) {
    sj_ir_node *m = copy_node(c, from->v[i]);
    if (m) sj_ir_block_push(to, m);
  }
}

/* reg computed again into front (its operands first); its register there. */
static int recompute(copier *c, sj_ir_block *front, int reg, int *again) {
  if (again[reg]) return again[reg];
  sj_ir_node *n = sj_ir_node_new(SJ_IR_INS);
  n->ins = *c->u->def[reg];
  sj_ir_val *v[3] = {&n->ins.a, &n->ins.b, &n->ins.c};
  for (int k = 0; k < 3; k++)
    if (v[k]->kind == SJ_V_REG) v[k]->reg = recompute(c, front, v[k]->reg, again);
  n->ins.dst = again[reg] = fresh(c->f, reg);
  sj_ir_block_push(front, n);
  return again[reg];
}

static int compare(sj_ir_func *f, sj_ir_block *b, int reg, sj_ir_cmp cmp, long v, int joined) {
  int p = sj_ir_new_reg(f, SJ_IR_PRED, 0);
  sj_ir_node *n = sj_ir_ins_node(SJ_IR_SETP, f->regs[reg].type, p, sj_ir_reg_val(f, reg),
                                 sj_ir_int(f->regs[reg].type, v));
  n->ins.cmp = cmp;
  sj_ir_block_push(b, n);
  if (!joined) return p;
  int both = sj_ir_new_reg(f, SJ_IR_PRED, 0);
  sj_ir_block_push(b, sj_ir_ins_node(SJ_IR_AND, SJ_IR_PRED, both, sj_ir_reg_val(f, joined),
                                     sj_ir_reg_val(f, p)));
  return both;
}

/* The body as: the positions computed again, the guard, and an if whose branch where it holds
 * is the copy (reading the positions computed in front) and whose other is the code as it
 * was. */
static void split(unswitch *u) {
  sj_ir_func *f = u->f;
  size_t nregs = (size_t)f->nregs + 1;
  int *again = calloc(nregs, sizeof *again);
  copier c = {f, calloc(nregs, sizeof *c.to), calloc(nregs, 1), u};
  if (!again || !c.to || !c.kept) abort();
  sj_ir_block front = {0};
  int guard = 0;
  for (int i = 0; i < u->nroots; i++) {
    const root *r = &u->roots[i];
    if (r->lo > r->hi || !r->ncut) continue;
    int at = recompute(&c, &front, r->reg, again);
    if (r->a > r->lo) guard = compare(f, &front, at, SJ_CMP_GE, r->a, guard);
    if (r->b < r->hi) guard = compare(f, &front, at, SJ_CMP_LE, r->b, guard);
    c.to[r->reg] = at;
    c.kept[r->reg] = 1;
  }
  sj_ir_node *version = sj_ir_node_new(SJ_IR_IF);
  version->cond = sj_ir_reg_val(f, guard);
  copy_block(&c, &f->body, &version->then);
  version->other = f->body;
  f->body = front;
  sj_ir_block_push(&f->body, version);
  free(again);
  free(c.to);
  free(c.kept);
}

/* The copy kept where the tests the ranges decide in it, with the copies that leaves forwarded
 * and what no longer has a reader removed, save GUARD_RETURN times the guard's work, else the
 * code as it was: the branches of an edge's code that the copy drops are mostly not taken in the
 * original either, and the code has to pay for the guard and for what later passes move in front
 * of the two versions. Twice: no kernel of tests/kernels ran more instructions, where three times
 * left corner_points2d (-10% with the copy) and halo1d (-7%) as they were. */
enum { GUARD_RETURN = 2 };
static void judge(sj_ir_func *f, long compares, int nregs) {
  sj_ir_node *version = f->body.v[f->body.n - 1];
  long before = control(&version->then);
  sj_ir_fold_ranges(f);
  sj_ir_forward_copies(f);
  sj_ir_remove_dead(f);
  version = f->body.v[f->body.n - 1];
  if (version->kind != SJ_IR_IF ||
      before - control(&version->then) >= GUARD_RETURN * (2 * compares + 2))
    return;
  sj_ir_block kept = version->other;
  version->other = (sj_ir_block){0};
  sj_ir_block_clear(&f->body);
  f->body = kept;
  f->nregs = nregs; /* the copy's and the guard's registers are gone with them */
}

void sj_ir_unswitch(sj_ir_func *f) {
  if (f->kind != SJ_FUNC_KERNEL) return;
  size_t n = (size_t)f->nregs + 1;
  unswitch u = {.f = f,
                .def = calloc(n, sizeof *u.def),
                .ndefs = calloc(n, sizeof *u.ndefs),
                .top = calloc(n, 1),
                .lo = malloc(n * sizeof *u.lo),
                .hi = malloc(n * sizeof *u.hi)};
  if (!u.def || !u.ndefs || !u.top || !u.lo || !u.hi) abort();
  scan(&u, &f->body, 1);
  if (!u.shared_path && u.nins <= MAX_INS) {
    sj_ir_top_spans(f, u.lo, u.hi);
    u.uses = sj_ir_count_uses(f);
    sj_ir_foreach_ins(&f->body, test, &u);
    long compares = promising(&u);
    if (compares) {
      int nregs = f->nregs;
      split(&u);
      judge(f, compares, nregs);
    }
  }
  free(u.def);
  free(u.ndefs);
  free(u.top);
  free(u.lo);
  free(u.hi);
  free(u.uses);
}
