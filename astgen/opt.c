/* Passes on the IR, written once for both targets: tests that ranges decide dropped
 * (astgen/range.c), copies and constants forwarded (astgen/copies.c), loop-invariant code motion,
 * addresses of innermost loops as pointers advanced at the latch, values kept in registers over
 * loops (astgen/promote.c), common values computed once (astgen/cse.c), dead code removal, adjacent
 * branches on one condition merged (a few global stores to a branch); and for PTX, short guarded
 * code as predicated instructions and comparisons joined to the and or or that reads them (the
 * printer runs these last, after astgen/reload.c). */
#include "astgen/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct loop_defs {
  const sj_ir_func *f;
  char *in_loop; /* by register: assigned somewhere in the loop */
} loop_defs;

static void note_def(sj_ir_ins *ins, void *user) {
  loop_defs *d = user;
  if (ins->dst) d->in_loop[ins->dst] = 1;
}

static int varies(const loop_defs *d, sj_ir_val v) {
  return v.kind == SJ_V_REG && d->in_loop[v.reg];
}

static int invariant(const loop_defs *d, const sj_ir_ins *ins) {
  if (!ins->dst || d->f->regs[ins->dst].is_var || ins->guard || !sj_ir_is_pure(ins)) return 0;
  return !varies(d, ins->a) && !varies(d, ins->b) && !varies(d, ins->c);
}

/* Moves the invariant instructions of block (and of the ifs in it, not of inner loops) in
 * front of position *at of out; returns how many moved. */
static void hoist_from(loop_defs *d, sj_ir_block *b, sj_ir_block *out, int *at) {
  for (int i = 0; i < b->n;) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_IF) {
      hoist_from(d, &n->then, out, at);
      hoist_from(d, &n->other, out, at);
    }
    if (n->kind == SJ_IR_INS && invariant(d, &n->ins)) {
      d->in_loop[n->ins.dst] = 0;
      memmove(b->v + i, b->v + i + 1, (size_t)(b->n - i - 1) * sizeof *b->v);
      b->n--;
      sj_ir_block_insert(out, (*at)++, n);
      continue;
    }
    i++;
  }
}

/* The iterators of the loops in b, which their loops assign. */
static void note_iterators(const sj_ir_block *b, char *in_loop) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_LOOP) in_loop[n->iter] = 1;
    if (n->kind == SJ_IR_INS) continue;
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) note_iterators(blocks[k], in_loop);
  }
}

static void loop_assignments(const sj_ir_func *f, sj_ir_node *loop, char *in_loop) {
  loop_defs d = {f, in_loop};
  in_loop[loop->iter] = 1;
  sj_ir_block *blocks[] = {&loop->head, &loop->body, &loop->latch};
  for (int k = 0; k < 3; k++) {
    sj_ir_foreach_ins(blocks[k], note_def, &d);
    note_iterators(blocks[k], in_loop);
  }
}

/* --- strength reduction --- */

static void rename_ins(sj_ir_ins *ins, void *user) {
  const int *from_to = user;
  sj_ir_rename_uses(ins, from_to[0], from_to[1]);
}

/* The loop's head and body read register to where they read from. */
static void rename_in_loop(sj_ir_node *loop, int from, int to) {
  int from_to[2] = {from, to};
  sj_ir_foreach_ins(&loop->body, rename_ins, from_to);
  sj_ir_foreach_ins(&loop->head, rename_ins, from_to);
}

static sj_ir_ins *find_def(sj_ir_block *b, int reg) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS && n->ins.dst == reg) return &n->ins;
    if (n->kind == SJ_IR_IF) {
      sj_ir_ins *in = find_def(&n->then, reg);
      if (!in) in = find_def(&n->other, reg);
      if (in) return in;
    }
  }
  return NULL;
}

/* The coefficient c when x is iter * c (c a constant), else 0. */
static long iter_coefficient(sj_ir_node *loop, sj_ir_val x) {
  if (x.kind != SJ_V_REG) return 0;
  if (x.reg == loop->iter) return 1;
  sj_ir_ins *def = find_def(&loop->body, x.reg);
  if (def && def->op == SJ_IR_MUL && def->a.kind == SJ_V_REG && def->a.reg == loop->iter &&
      def->b.kind == SJ_V_INT)
    return def->b.i;
  return 0;
}

/* The pointer variables a loop's reduction made: base + iter * c in q. */
typedef struct reduced {
  int n;
  struct {
    sj_ir_val base;
    long c;
    int q;
  } v[16];
} reduced;

/* Whether a and b hold the same value: equal, or registers that instructions of out (the
 * code in front of the loop, where the copies' addresses were hoisted, each its own chain
 * before sj_ir_share) compute alike, up to depth definitions deep. */
static int same_val(sj_ir_block *out, sj_ir_val a, sj_ir_val b, int depth) {
  if (a.kind != b.kind) return 0;
  if (a.kind != SJ_V_REG) return a.i == b.i && a.f == b.f;
  if (a.reg == b.reg) return 1;
  sj_ir_ins *x = depth ? find_def(out, a.reg) : NULL, *y = x ? find_def(out, b.reg) : NULL;
  /* imm tells apart what has no operand: the shared array, the parameter, the special value */
  return y && x->op == y->op && x->type == y->type && x->imm == y->imm && x->cmp == y->cmp &&
         !x->guard && !y->guard && sj_ir_is_pure(x) && same_val(out, x->a, y->a, depth - 1) &&
         same_val(out, x->b, y->b, depth - 1) && same_val(out, x->c, y->c, depth - 1);
}

/* In a loop without inner loops and with a constant step, each pointer base + iter * c
 * (base invariant) becomes a variable set before the loop and advanced at its latch; one
 * variable for each base and c (the guarded copies of a grouped loop, astgen/lower_full.c,
 * each compute the same pointer). */
static void reduce(sj_ir_func *f, sj_ir_block *out, int *at, sj_ir_node *loop, char *in_loop,
                   sj_ir_block *b, reduced *seen) {
  loop_defs d = {f, in_loop};
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_IF) {
      reduce(f, out, at, loop, in_loop, &n->then, seen);
      reduce(f, out, at, loop, in_loop, &n->other, seen);
      continue;
    }
    if (n->kind != SJ_IR_INS || n->ins.op != SJ_IR_PTRADD || n->ins.guard) continue;
    long c = iter_coefficient(loop, n->ins.b);
    if (!c || varies(&d, n->ins.a)) continue;
    int k = 0;
    while (k < seen->n && !(seen->v[k].c == c && same_val(out, seen->v[k].base, n->ins.a, 4))) k++;
    if (k < seen->n && f->regs[seen->v[k].q].array == f->regs[n->ins.dst].array) {
      rename_in_loop(loop, n->ins.dst, seen->v[k].q);
      n->ins.dst = 0; /* dead: removed below */
      continue;
    }
    int q = sj_ir_new_reg(f, SJ_IR_PTR, f->regs[n->ins.dst].level);
    f->regs[q] = f->regs[n->ins.dst]; /* realloc above: index again */
    f->regs[q].is_var = 1;
    sj_ir_val start;
    if (loop->init.kind == SJ_V_INT) {
      start = sj_ir_int(SJ_IR_S64, loop->init.i * c);
    } else if (c == 1) {
      start = loop->init;
    } else {
      int t = sj_ir_new_reg(f, SJ_IR_S64, 0);
      sj_ir_block_insert(
          out, (*at)++,
          sj_ir_ins_node(SJ_IR_MUL, SJ_IR_S64, t, loop->init, sj_ir_int(SJ_IR_S64, c)));
      start = sj_ir_reg_val(f, t);
    }
    if (start.kind == SJ_V_INT && start.i == 0)
      sj_ir_block_insert(out, (*at)++, sj_ir_ins_node(SJ_IR_MOV, SJ_IR_PTR, q, n->ins.a, start));
    else
      sj_ir_block_insert(out, (*at)++, sj_ir_ins_node(SJ_IR_PTRADD, SJ_IR_PTR, q, n->ins.a, start));
    sj_ir_block_push(&loop->latch, sj_ir_ins_node(SJ_IR_PTRADD, SJ_IR_PTR, q, sj_ir_reg_val(f, q),
                                                  sj_ir_int(SJ_IR_S64, loop->step.i * c)));
    if (seen->n < (int)(sizeof seen->v / sizeof seen->v[0]))
      seen->v[seen->n].base = n->ins.a, seen->v[seen->n].c = c, seen->v[seen->n++].q = q;
    rename_in_loop(loop, n->ins.dst, q);
    n->ins.dst = 0; /* dead: removed below */
  }
}

/* --- pointer variables merged --- */

static void count_reg(int *reg, void *user) {
  int *r = user;
  if (*reg == r[0]) r[1]++;
}

/* The reads of register reg by the instructions of node n and the blocks inside it (not by the
 * control of its loops and ifs). */
static int reads_of(sj_ir_node *n, int reg) {
  int r[2] = {reg, 0};
  if (n->kind == SJ_IR_INS) {
    sj_ir_foreach_use(&n->ins, count_reg, r);
    return r[1];
  }
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < blocks[k]->n; i++) r[1] += reads_of(blocks[k]->v[i], reg);
  return r[1];
}

static void count_def(sj_ir_ins *ins, void *user) {
  ((int *)user)[ins->dst]++;
}

/* Operands that hold one value wherever they are read: constants, and registers that are not
 * variables. */
static int same_operand(const sj_ir_func *f, sj_ir_val a, sj_ir_val b) {
  if (a.kind != b.kind) return 0;
  if (a.kind != SJ_V_REG) return a.i == b.i && a.f == b.f;
  return a.reg == b.reg && !f->regs[a.reg].is_var;
}

/* A pointer variable of a loop as strength reduction leaves it: set once before the loop, advanced
 * by a constant in its latch, assigned nowhere else and read only by the loop's instructions (in
 * its latch, by its increment alone). */
typedef struct loop_ptr {
  int q;
  sj_ir_ins *init, *step;
} loop_ptr;

/* Whether node latch of the latch of the loop at b->v[at] advances such a pointer (into *p). */
static int loop_pointer(const sj_ir_func *f, sj_ir_block *b, int at, sj_ir_node *latch,
                        const int *defs, const int *uses, loop_ptr *p) {
  sj_ir_node *loop = b->v[at];
  p->q = latch->kind == SJ_IR_INS ? latch->ins.dst : 0;
  p->step = latch->kind == SJ_IR_INS ? &latch->ins : NULL;
  p->init = NULL;
  int q = p->q;
  if (!q || !f->regs[q].is_var || defs[q] != 2 || reads_of(loop, q) != uses[q] ||
      p->step->op != SJ_IR_PTRADD || p->step->guard || p->step->a.kind != SJ_V_REG ||
      p->step->a.reg != q || p->step->b.kind != SJ_V_INT)
    return 0;
  for (int i = 0; i < loop->latch.n; i++)
    if (loop->latch.v[i] != latch && reads_of(loop->latch.v[i], q)) return 0;
  for (int i = at - 1; i >= 0 && !p->init; i--)
    if (b->v[i]->kind == SJ_IR_INS && b->v[i]->ins.dst == q) p->init = &b->v[i]->ins;
  return p->init && !p->init->guard;
}

/* Whether pointers p and q hold the same value at every point of their loop. */
static int same_pointer(const sj_ir_func *f, const loop_ptr *p, const loop_ptr *q) {
  const sj_ir_reg *a = &f->regs[p->q], *c = &f->regs[q->q];
  const sj_ir_ins *x = p->init, *y = q->init;
  return a->type == c->type && a->elem == c->elem && a->space == c->space && a->array == c->array &&
         p->step->b.i == q->step->b.i && x->op == y->op && x->type == y->type && x->imm == y->imm &&
         same_operand(f, x->a, y->a) && same_operand(f, x->b, y->b);
}

/* Strength reduction gives each address base + iter * c a variable of its own where the bases
 * are not yet known equal; sj_ir_share finds them equal afterwards. Variables of a loop with
 * the same start and the same step are one: the others' reads take the first (the box copy of
 * a heat-2d hybrid tile's general code advanced 8 equal pointers an iteration for 4 copies). */
static void merge_pointers(sj_ir_func *f, sj_ir_block *b, const int *defs, const int *uses) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) continue;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) merge_pointers(f, blocks[k], defs, uses);
    if (n->kind != SJ_IR_LOOP) continue;
    loop_ptr *p = malloc(((size_t)n->latch.n + 1) * sizeof *p);
    if (!p) abort();
    int np = 0;
    for (int j = 0; j < n->latch.n; j++)
      if (loop_pointer(f, b, i, n->latch.v[j], defs, uses, &p[np])) np++;
    for (int j = 0; j < np; j++)
      for (int k = j + 1; p[j].q && k < np; k++)
        if (p[k].q && same_pointer(f, &p[j], &p[k])) {
          rename_in_loop(n, p[k].q, p[j].q);
          p[k].init->dst = p[k].step->dst = 0; /* dead: removed below */
          p[k].q = 0;
        }
    free(p);
  }
}

static int has_loop(const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_LOOP) return 1;
    if (n->kind == SJ_IR_IF && (has_loop(&n->then) || has_loop(&n->other))) return 1;
  }
  return 0;
}

static void optimize_block(sj_ir_func *f, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_IF) {
      optimize_block(f, &n->then);
      optimize_block(f, &n->other);
      continue;
    }
    if (n->kind != SJ_IR_LOOP) continue;
    optimize_block(f, &n->head);
    optimize_block(f, &n->body);
    char *in_loop = calloc((size_t)f->nregs + 1, 1);
    if (!in_loop) abort();
    loop_assignments(f, n, in_loop);
    loop_defs d = {f, in_loop};
    int at = i;
    hoist_from(&d, &n->head, b, &at);
    hoist_from(&d, &n->body, b, &at);
    reduced seen = {0};
    if (n->step.kind == SJ_V_INT && !has_loop(&n->body))
      reduce(f, b, &at, n, in_loop, &n->body, &seen);
    if (f->kind != SJ_FUNC_HOST) sj_ir_promote(f, n, b, &at);
    free(in_loop);
    i = at; /* b->v[at] is the loop again */
  }
}

/* --- dead code --- */

static int remove_dead(sj_ir_func *f, sj_ir_block *b, const int *uses) {
  int removed = 0;
  for (int i = 0; i < b->n;) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
      for (int k = 0; k < 5; k++) removed += remove_dead(f, blocks[k], uses);
      i++;
      continue;
    }
    const sj_ir_ins *ins = &n->ins;
    int dead = ins->op != SJ_IR_ST && ins->op != SJ_IR_BARRIER && ins->op != SJ_IR_TRAP &&
               ins->op != SJ_IR_LAUNCH && ins->op != SJ_IR_ATOM && ins->op != SJ_IR_SHFL &&
               (!ins->dst || (!uses[ins->dst] && !f->regs[ins->dst].is_var));
    if (dead && ins->op == SJ_IR_MOV && ins->dst) dead = !f->regs[ins->dst].is_var;
    if (dead && ins->dst && ins->op != SJ_IR_LD && !sj_ir_is_pure(ins)) dead = 0;
    if (dead) {
      sj_ir_node_free(n);
      memmove(b->v + i, b->v + i + 1, (size_t)(b->n - i - 1) * sizeof *b->v);
      b->n--;
      removed++;
      continue;
    }
    i++;
  }
  return removed;
}

/* --- adjacent branches on one condition --- */

/* The then block being extended is noted as a loop's assignments are (loop_defs, note_def);
 * in_loop NULL: nothing noted yet. */
static int reads_from(const loop_defs *d, sj_ir_val v) {
  return v.kind == SJ_V_REG && ((d->in_loop && varies(d, v)) || d->f->regs[v.reg].is_var);
}

/* Whether ins may move in front of the then block: a pure value of none of its results. */
static int movable_over(const loop_defs *d, const sj_ir_ins *ins) {
  if (!ins->dst || d->f->regs[ins->dst].is_var || ins->guard || !sj_ir_is_pure(ins) || ins->nargs)
    return 0;
  return !reads_from(d, ins->a) && !reads_from(d, ins->b) && !reads_from(d, ins->c);
}

static int plain_if(const sj_ir_func *f, const sj_ir_node *n) {
  return n->kind == SJ_IR_IF && !n->other.n && n->cond.kind == SJ_V_REG &&
         !f->regs[n->cond.reg].is_var;
}

/* Whether every instruction of b stores to global memory. */
static int global_stores(const sj_ir_func *f, const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS || n->ins.op != SJ_IR_ST || n->ins.guard ||
        n->ins.a.kind != SJ_V_REG || f->regs[n->ins.a.reg].space != SJ_SPACE_GLOBAL)
      return 0;
  }
  return 1;
}

/* Whether store ins reads register r. */
static int store_reads(const sj_ir_ins *ins, int r) {
  const sj_ir_val *v[] = {&ins->a, &ins->b};
  for (int k = 0; k < 2; k++)
    if (v[k]->kind == SJ_V_REG && v[k]->reg == r) return 1;
  return ins->guard == r;
}

/* Whether ins may move in front of then, a block of global stores, which assign nothing: a
 * value, or a load or store of shared memory (which cannot touch what they write); a variable
 * it assigns (a value carried to the next iteration, astgen/promote.c) read by none of them. */
static int movable_over_stores(const sj_ir_func *f, const sj_ir_ins *ins, const sj_ir_block *then) {
  if (ins->dst && f->regs[ins->dst].is_var)
    for (int i = 0; i < then->n; i++)
      if (store_reads(&then->v[i]->ins, ins->dst)) return 0;
  if (sj_ir_is_pure(ins)) return !ins->nargs;
  return (ins->op == SJ_IR_LD || ins->op == SJ_IR_ST) && ins->a.kind == SJ_V_REG &&
         f->regs[ins->a.reg].space == SJ_SPACE_SHARED;
}

/* The most global stores one branch gathers past shared memory accesses (each holds its value
 * in a register until the branch), and the fewest that stay a branch rather than predicated
 * instructions: a thread that stores none of them skips them at the cost of one. A staged
 * tile's live-out stores are each guarded by the thread's place in the tile, false for most
 * threads: heat-2d's full tiles issued one such store per update. */
enum { STORE_GROUP = 8, STORE_BRANCH = 3 };

/* The position of the if on b->v[i]'s condition that follows it past instructions that may
 * move in front of it, or -1. */
static int next_if(const loop_defs *d, const sj_ir_block *b, int i) {
  const sj_ir_node *n = b->v[i];
  /* past_more: past what may move in front of any then block */
  int stores = global_stores(d->f, &n->then), past_more = 0, j = i + 1;
  for (; j < b->n && b->v[j]->kind == SJ_IR_INS; j++) {
    if (movable_over(d, &b->v[j]->ins)) continue;
    if (!stores || !movable_over_stores(d->f, &b->v[j]->ins, &n->then)) break;
    past_more = 1;
  }
  if (j == b->n || !plain_if(d->f, b->v[j]) || b->v[j]->cond.reg != n->cond.reg) return -1;
  const sj_ir_node *m = b->v[j];
  if (past_more && (!global_stores(d->f, &m->then) || n->then.n + m->then.n > STORE_GROUP))
    return -1;
  return j;
}

/* if (c) A; X; if (c) B, X pure values of neither A's results nor variables, becomes
 * X; if (c) { A B }: the copies of a tile's elements are each guarded by the block's bound
 * on the thread and by the element's own bounds, one branch each, and the thread's bound
 * is then tested once for all of them. Where A and B store to global memory, X may access
 * shared memory too (a few stores at a time: STORE_GROUP). */
static void merge_ifs(sj_ir_func *f, sj_ir_block *b, char *def) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) continue;
    if (!plain_if(f, n)) {
      sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
      for (int k = 0; k < 5; k++) merge_ifs(f, blocks[k], def);
      continue;
    }
    loop_defs d = {f, NULL};
    if (next_if(&d, b, i) >= 0) { /* the then block's results, only where one may merge */
      d.in_loop = def;
      memset(def, 0, (size_t)f->nregs + 1);
      sj_ir_foreach_ins(&n->then, note_def, &d);
    }
    for (int j; (j = next_if(&d, b, i)) >= 0;) {
      sj_ir_node *m = b->v[j];
      sj_ir_foreach_ins(&m->then, note_def, &d);
      for (int k = 0; k < m->then.n; k++) sj_ir_block_push(&n->then, m->then.v[k]);
      m->then.n = 0;
      sj_ir_node_free(m);
      memmove(b->v + i, b->v + i + 1, (size_t)(j - i - 1) * sizeof *b->v); /* X first */
      b->v[j - 1] = n;
      memmove(b->v + j, b->v + j + 1, (size_t)(b->n - j - 1) * sizeof *b->v);
      b->n--;
      i = j - 1;
    }
    merge_ifs(f, &n->then, def);
  }
}

/* How a block's code lies under branches on predicate c: -1 some of it not (an instruction that
 * is not pure, or assigns a variable or c, a loop, an else), else whether a branch on c holds
 * some (the rest, nested in branches without else, is pure values). */
static int under(const sj_ir_func *f, const sj_ir_block *b, int c) {
  int some = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      const sj_ir_ins *ins = &n->ins;
      if (ins->dst == c || !sj_ir_is_pure(ins) || (ins->dst && f->regs[ins->dst].is_var)) return -1;
      continue;
    }
    if (n->kind != SJ_IR_IF || n->other.n) return -1;
    int inner = n->cond.kind == SJ_V_REG && n->cond.reg == c ? 1 : under(f, &n->then, c);
    if (inner < 0) return -1;
    some |= inner;
  }
  return some;
}

/* b with the branches on c inlined (they hold). */
static void strip(sj_ir_block *b, int c) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_IF) continue;
    strip(&n->then, c);
    if (n->cond.kind != SJ_V_REG || n->cond.reg != c) continue;
    sj_ir_block code = n->then;
    n->then = (sj_ir_block){0};
    sj_ir_node_free(n);
    memmove(b->v + i, b->v + i + 1, (size_t)(b->n - i - 1) * sizeof *b->v);
    b->n--;
    for (int k = 0; k < code.n; k++) sj_ir_block_insert(b, i + k, code.v[k]);
    i += code.n - 1;
    free(code.v);
  }
}

/* The predicate of the first branch directly in b, or 0. */
static int first_cond(const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_IF) continue;
    return n->cond.kind == SJ_V_REG ? n->cond.reg : 0;
  }
  return 0;
}

/* if (r) { X; if (c) A; if (s) { Y; if (c) B; ... } }, X and Y pure values, becomes
 * if (c) { if (r) { X; A; if (s) { Y; B; ... } } }: a thread's block of a step's rows, each
 * nested in the row before's guard and each guarded by the column's place in the window
 * (astgen/lower_full.c), tests the column once. */
static void hoist_guards(sj_ir_func *f, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_IF && !n->other.n && n->cond.kind == SJ_V_REG) {
      int c = first_cond(&n->then);
      if (c && c != n->cond.reg && under(f, &n->then, c) > 0) {
        strip(&n->then, c);
        sj_ir_node *guard = sj_ir_node_new(SJ_IR_IF);
        guard->cond = sj_ir_reg_val(f, c);
        sj_ir_block_push(&guard->then, n);
        b->v[i] = n = guard;
      }
    }
    if (n->kind == SJ_IR_INS) continue;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) hoist_guards(f, blocks[k]);
  }
}

/* --- loops skipped where their body does nothing --- */

/* A loop whose body is pure values and one inner node, a loop or a branch, that is the same in
 * every iteration (the inner loop's start and bounds, the branch's condition) does nothing where
 * the inner loop runs no iteration or the branch is not taken: it goes in a branch on that test,
 * and an inner branch's code takes the branch's place. A thread of a partial split tile went
 * over all its rows (their addresses, test and latch: 11 instructions a row) to find no column
 * of the row in its window, which the first row already said (split heat-2d 2048^2 x 64: two
 * thirds of the rows a thread visited). */

/* Whether b holds only pure values (each assigning a register). */
static int only_pure(const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS || !sj_ir_is_pure(&n->ins) || n->ins.nargs || !n->ins.dst) return 0;
  }
  return 1;
}

/* The position in b of its only node but pure instructions, a loop or a branch without else,
 * or -1. */
static int sole_inner(const sj_ir_block *b) {
  int at = -1;
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS && sj_ir_is_pure(&n->ins)) continue;
    if (n->kind == SJ_IR_INS || at >= 0 || (n->kind == SJ_IR_IF && (n->other.n || !n->then.n)))
      return -1;
    at = i;
  }
  return at;
}

/* Whether the code of b holds an instruction every thread of a block or warp must reach. */
static int collective(const sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      if (n->ins.op == SJ_IR_BARRIER || n->ins.op == SJ_IR_SHFL) return 1;
      continue;
    }
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++)
      if (collective(blocks[k])) return 1;
  }
  return 0;
}

/* Whether the registers the instructions of b assign are read only where inside counts. */
static int read_inside(const sj_ir_block *b, const int *uses, const int *inside) {
  for (int i = 0; i < b->n; i++) {
    int r = b->v[i]->kind == SJ_IR_INS ? b->v[i]->ins.dst : 0;
    if (r && uses[r] != inside[r]) return 0;
  }
  return 1;
}

/* Whether inner's test is the same in every iteration of loop (in_loop: what loop assigns): a
 * branch's condition, or an inner loop's start and the operands of its head but its iterator. */
static int same_test(const loop_defs *d, const sj_ir_node *inner) {
  if (inner->kind == SJ_IR_IF) return !varies(d, inner->cond);
  if (varies(d, inner->init)) return 0;
  for (int i = 0; i < inner->head.n; i++) {
    const sj_ir_ins *ins = &inner->head.v[i]->ins;
    const sj_ir_val *v[3] = {&ins->a, &ins->b, &ins->c};
    if (ins->guard) return 0;
    for (int k = 0; k < 3; k++) {
      int own = v[k]->kind != SJ_V_REG || v[k]->reg == inner->iter;
      for (int j = 0; j < i && !own; j++) own = inner->head.v[j]->ins.dst == v[k]->reg;
      if (!own && varies(d, *v[k])) return 0;
    }
  }
  return 1;
}

/* The test of inner loop's first iteration, its head's instructions at its start appended to
 * out; none where its condition is not of its head. */
static sj_ir_val first_test(sj_ir_func *f, const sj_ir_node *inner, sj_ir_block *out) {
  sj_ir_val test = {0};
  int *to = calloc((size_t)inner->head.n + 1, sizeof *to);
  if (!to) abort();
  for (int i = 0; i < inner->head.n; i++) {
    sj_ir_ins ins = inner->head.v[i]->ins;
    sj_ir_val *v[3] = {&ins.a, &ins.b, &ins.c};
    for (int k = 0; k < 3; k++) {
      if (v[k]->kind != SJ_V_REG) continue;
      if (v[k]->reg == inner->iter) *v[k] = inner->init;
      for (int j = 0; j < i; j++)
        if (v[k]->reg == inner->head.v[j]->ins.dst) *v[k] = sj_ir_reg_val(f, to[j]);
    }
    to[i] = ins.dst = sj_ir_new_reg(f, f->regs[ins.dst].type, f->regs[ins.dst].level);
    sj_ir_node *copy = sj_ir_node_new(SJ_IR_INS);
    copy->ins = ins;
    sj_ir_block_push(out, copy);
    if (inner->head.v[i]->ins.dst == inner->cond.reg) test = sj_ir_reg_val(f, ins.dst);
  }
  free(to);
  return test;
}

/* Whether loop does nothing where its inner node's test fails (at *at of its body). */
static int skippable(sj_ir_func *f, sj_ir_node *loop, const int *uses, int *at) {
  *at = sole_inner(&loop->body);
  if (*at < 0) return 0;
  sj_ir_node *inner = loop->body.v[*at];
  if (inner->cond.kind != SJ_V_REG || !only_pure(&loop->head) || !only_pure(&loop->latch) ||
      (inner->kind == SJ_IR_LOOP && !only_pure(&inner->head)))
    return 0;
  sj_ir_block whole = {&loop, 1, 1};
  if (collective(&whole)) return 0;
  char *in_loop = calloc((size_t)f->nregs + 1, 1);
  int *inside = calloc((size_t)f->nregs + 1, sizeof *inside);
  if (!in_loop || !inside) abort();
  loop_assignments(f, loop, in_loop);
  sj_ir_add_uses(&whole, inside);
  loop_defs d = {f, in_loop};
  int ok = same_test(&d, inner) && uses[loop->iter] == inside[loop->iter] &&
           read_inside(&loop->head, uses, inside) && read_inside(&loop->body, uses, inside) &&
           read_inside(&loop->latch, uses, inside);
  if (ok && inner->kind == SJ_IR_LOOP)
    ok = uses[inner->iter] == inside[inner->iter] && read_inside(&inner->head, uses, inside);
  free(in_loop);
  free(inside);
  return ok;
}

static void skip_empty(sj_ir_func *f, sj_ir_block *b, int **uses);

static void skip_inside(sj_ir_func *f, sj_ir_node *n, int **uses) {
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int k = 0; k < 5; k++) skip_empty(f, blocks[k], uses);
}

/* uses: of each register, counted again after each change (its new registers). A loop alone
 * in a branch is left as it is: the pass runs again on optimized code (jit/compile.c). */
static void skip_empty(sj_ir_func *f, sj_ir_block *b, int **uses) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i], *inner;
    int at;
    if (n->kind == SJ_IR_INS) continue;
    if (n->kind == SJ_IR_IF && !n->other.n && n->then.n == 1 && n->then.v[0]->kind == SJ_IR_LOOP) {
      skip_inside(f, n->then.v[0], uses);
      continue;
    }
    skip_inside(f, n, uses);
    if (n->kind != SJ_IR_LOOP || !skippable(f, n, *uses, &at)) continue;
    inner = n->body.v[at];
    sj_ir_block tests = {0};
    sj_ir_val test = inner->kind == SJ_IR_IF ? inner->cond : first_test(f, inner, &tests);
    if (test.kind != SJ_V_REG) {
      sj_ir_block_clear(&tests);
      continue;
    }
    for (int k = 0; k < tests.n; k++) sj_ir_block_insert(b, i++, tests.v[k]);
    free(tests.v);
    if (inner->kind == SJ_IR_IF) { /* it holds in the loop: its code in its place */
      n->body.v[at] = inner->then.v[0];
      for (int k = 1; k < inner->then.n; k++)
        sj_ir_block_insert(&n->body, at + k, inner->then.v[k]);
      inner->then.n = 0;
      sj_ir_node_free(inner);
    }
    sj_ir_node *branch = sj_ir_node_new(SJ_IR_IF);
    branch->cond = test;
    sj_ir_block_push(&branch->then, n);
    b->v[i] = branch;
    free(*uses);
    *uses = sj_ir_count_uses(f);
  }
}

void sj_ir_remove_dead(sj_ir_func *f) {
  for (;;) {
    int *uses = sj_ir_count_uses(f);
    int removed = remove_dead(f, &f->body, uses);
    free(uses);
    if (!removed) break;
  }
}

void sj_ir_optimize(sj_ir_func *f) {
  sj_ir_fold_ranges(f);
  sj_ir_forward_copies(f);
  optimize_block(f, &f->body);
  sj_ir_share(f);
  sj_ir_carry(f);
  int *defs = calloc((size_t)f->nregs + 1, sizeof *defs), *uses = sj_ir_count_uses(f);
  if (!defs) abort();
  sj_ir_foreach_ins(&f->body, count_def, defs);
  merge_pointers(f, &f->body, defs, uses);
  free(defs);
  free(uses);
  sj_ir_remove_dead(f);
  char *def = calloc((size_t)f->nregs + 1, 1);
  if (!def) abort();
  merge_ifs(f, &f->body, def);
  free(def);
  hoist_guards(f, &f->body);
  uses = sj_ir_count_uses(f);
  skip_empty(f, &f->body, &uses);
  free(uses);
}

/* --- predication --- */

/* Loads stay behind a branch: ptxas (CUDA 13.0) value-numbers two predicated loads of one
 * read-only address as one even under complementary predicates, and then uses the first
 * (never executed) where the second ran: an if and its else reading the same element gave
 * garbage on an H200, though the PTX is right (red_guarded, fe_break_swap). ptxas predicates
 * a short branch itself, after its value numbering. */
static int predicable(const sj_ir_func *f, const sj_ir_node *n, int max) {
  if (n->kind != SJ_IR_IF || n->other.n || !n->then.n || n->then.n > max ||
      n->cond.kind != SJ_V_REG || (n->then.n >= STORE_BRANCH && global_stores(f, &n->then)))
    return 0;
  for (int i = 0; i < n->then.n; i++) {
    const sj_ir_node *c = n->then.v[i];
    if (c->kind != SJ_IR_INS || c->ins.guard || c->ins.op == SJ_IR_TRAP ||
        c->ins.op == SJ_IR_BARRIER || c->ins.op == SJ_IR_SHFL || c->ins.op == SJ_IR_LD)
      return 0;
  }
  return 1;
}

static void predicate_block(const sj_ir_func *f, sj_ir_block *b, int max) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) continue;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) predicate_block(f, blocks[k], max);
    if (!predicable(f, n, max)) continue;
    int count = n->then.n;
    for (int k = 0; k < count; k++) n->then.v[k]->ins.guard = n->cond.reg;
    b->v[i] = n->then.v[0];
    for (int k = 1; k < count; k++) sj_ir_block_insert(b, i + k, n->then.v[k]);
    n->then.n = 0;
    sj_ir_node_free(n);
    i += count - 1;
  }
}

void sj_ir_predicate(sj_ir_func *f, int max) {
  predicate_block(f, &f->body, max);
}

/* --- comparisons joined to a predicate --- */

typedef struct fusing {
  const sj_ir_func *f;
  int *uses;
  sj_ir_block **block; /* by register: the block of its SETP (NULL: none to fuse) */
  int *at;             /* and its place there */
} fusing;

static int fixed(const sj_ir_func *f, sj_ir_val v) {
  return v.kind != SJ_V_REG || !f->regs[v.reg].is_var;
}

/* p = a cmp b used once, by q = p and|or r later in its block: q = (a cmp b) and|or r, one PTX
 * setp. a and b never change, so the comparison may move to q. */
static void fuse_block(fusing *s, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
      for (int k = 0; k < 5; k++) fuse_block(s, blocks[k]);
      continue;
    }
    sj_ir_ins *q = &n->ins;
    for (int side = 0; side < 2 && (q->op == SJ_IR_AND || q->op == SJ_IR_OR) && !q->guard &&
                       !s->f->regs[q->dst].is_var;
         side++) {
      sj_ir_val p = side ? q->b : q->a, r = side ? q->a : q->b;
      if (p.kind != SJ_V_REG || r.kind != SJ_V_REG || s->block[p.reg] != b || s->uses[p.reg] != 1)
        continue;
      sj_ir_node *cmp = b->v[s->at[p.reg]];
      b->v[s->at[p.reg]] = NULL;
      s->block[p.reg] = NULL;
      sj_ir_ins fused = cmp->ins;
      fused.dst = q->dst;
      fused.red = q->op;
      fused.c = r;
      *q = fused;
      sj_ir_node_free(cmp);
    }
    if (q->op == SJ_IR_SETP && !q->red && !q->guard && !s->f->regs[q->dst].is_var &&
        fixed(s->f, q->a) && fixed(s->f, q->b)) {
      s->block[q->dst] = b;
      s->at[q->dst] = i;
    }
  }
  int kept = 0;
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (!n) continue;
    if (n->kind == SJ_IR_INS && n->ins.op == SJ_IR_SETP) s->block[n->ins.dst] = NULL;
    b->v[kept++] = n;
  }
  b->n = kept;
}

void sj_ir_fuse_compares(sj_ir_func *f) {
  fusing s = {f, sj_ir_count_uses(f), calloc((size_t)f->nregs + 1, sizeof(sj_ir_block *)),
              calloc((size_t)f->nregs + 1, sizeof(int))};
  if (!s.block || !s.at) abort();
  fuse_block(&s, &f->body);
  free(s.uses);
  free(s.block);
  free(s.at);
}
