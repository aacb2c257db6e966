/* Elements a loop reads and writes at one address, kept in a register over the loop (scalar
 * replacement): the accumulator of a reduction that runs in one thread (`s[0] += a[i]`), the
 * element of a product (`C[i][j] += A[i][k] * B[k][j]` over k), a coefficient read at every
 * iteration. Otherwise each iteration waits for its own store to come back from memory.
 *
 * A group is the accesses of one loop to one address: a register the loop does not assign and
 * an offset. It is promoted when no other access of the loop reaches its array (different
 * arrays never overlap: the API refuses overlapping arguments; an atomic on the array counts
 * as such an access), nothing in the loop works with other threads (a barrier, a launch, a
 * warp shuffle), and an access of the group runs at every iteration (unguarded in the loop's
 * head or body), so that the address is valid whenever the loop runs. Then, under the loop's first
 * test (its head's work on the first value): the element is loaded before the loop (into a register
 * set to 0 first, which the loop's moves may be hoisted to read) and, if the loop writes it, stored
 * after it; in the loop, loads and stores become moves, each under the guard it had. Other threads
 * do not touch the element while the loop runs: that would be a dependence between parallel
 * instances, which the mappings never make.
 *
 * Values carried to the next iteration (sj_ir_carry): a loop whose latch advances a pointer p by
 * a constant s loads [p + o] where its previous iteration loaded [p + o + s] (the rows of a
 * stencil a thread runs down in groups, astgen/lower_full.c: 9 loads for a group's first point,
 * 3 for the others). The later load then writes a register of its own, which the next
 * iteration reads in place of its load, and the first iteration's value is loaded in front of
 * the loop (under its first test). Only where nothing in the loop stores to either address,
 * nor to the array through another register, and the first value is read no more once the
 * second is loaded: one register holds both, without a move. */
#include "astgen/ir.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_GROUPS = 16 };

typedef struct group {
  int base; /* the address register */
  long imm; /* the offset */
  int array;
  sj_ir_space space;
  sj_ir_type type;
  int spoilt; /* another access reaches the array: not promoted */
  int stores, every_iteration;
} group;

typedef struct scan {
  const sj_ir_func *f;
  char *in_loop; /* by register: assigned in the loop */
  group g[MAX_GROUPS];
  int n;
  int shared_work; /* a barrier, launch or shuffle, or an access to an unknown array: no group */
} scan;

static int promotable_type(sj_ir_type t) {
  return t == SJ_IR_S32 || t == SJ_IR_S64 || t == SJ_IR_U32 || t == SJ_IR_U64 || t == SJ_IR_F32 ||
         t == SJ_IR_F64;
}

static void note_access(scan *s, const sj_ir_ins *ins, int top) {
  if (ins->op == SJ_IR_BARRIER || ins->op == SJ_IR_LAUNCH || ins->op == SJ_IR_SHFL)
    s->shared_work = 1;
  if (ins->op != SJ_IR_LD && ins->op != SJ_IR_ST && ins->op != SJ_IR_ATOM) return;
  if (ins->a.kind != SJ_V_REG) {
    s->shared_work = 1; /* an address not in a register: do not guess */
    return;
  }
  const sj_ir_reg *p = &s->f->regs[ins->a.reg];
  int fixed = !s->in_loop[ins->a.reg] && ins->op != SJ_IR_ATOM && promotable_type(ins->type);
  for (int i = 0; i < s->n; i++) {
    group *g = &s->g[i];
    if (g->space != p->space || g->array != p->array) continue;
    if (!fixed || g->base != ins->a.reg || g->imm != ins->imm || g->type != ins->type)
      g->spoilt = 1;
    g->stores += ins->op == SJ_IR_ST;
    g->every_iteration |= top && !ins->guard;
    return;
  }
  if (p->array < 0 || s->n == MAX_GROUPS) { /* where it points is not known: no guess */
    s->shared_work = 1;
    return;
  }
  s->g[s->n++] = (group){.base = ins->a.reg,
                         .imm = ins->imm,
                         .array = p->array,
                         .space = p->space,
                         .type = ins->type,
                         .spoilt = !fixed,
                         .stores = ins->op == SJ_IR_ST,
                         .every_iteration = top && !ins->guard};
}

static void scan_block(scan *s, const sj_ir_block *b, int top) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      note_access(s, &n->ins, top);
      continue;
    }
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) scan_block(s, blocks[k], 0);
  }
}

/* The group's loads and stores in b as moves from and to the register r. */
static void replace(sj_ir_func *f, sj_ir_block *b, const group *g, int r) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
      for (int k = 0; k < 5; k++) replace(f, blocks[k], g, r);
      continue;
    }
    sj_ir_ins *ins = &n->ins;
    if ((ins->op != SJ_IR_LD && ins->op != SJ_IR_ST) || ins->a.kind != SJ_V_REG ||
        ins->a.reg != g->base || ins->imm != g->imm)
      continue;
    if (ins->op == SJ_IR_LD) {
      ins->op = SJ_IR_MOV;
      ins->a = sj_ir_reg_val(f, r);
    } else {
      ins->op = SJ_IR_MOV;
      ins->dst = r;
      ins->a = ins->b;
    }
    ins->b = (sj_ir_val){0};
    ins->imm = 0;
    ins->nc = 0;
  }
}

/* The loop's first test, computed in front of it at *at of out: its head's instructions with
 * the first value for the iterator. 0 where the head is not plain work on registers. */
static int first_test(sj_ir_func *f, sj_ir_node *loop, sj_ir_block *out, int *at) {
  if (loop->cond.kind != SJ_V_REG) return 0;
  for (int i = 0; i < loop->head.n; i++) {
    const sj_ir_node *n = loop->head.v[i];
    if (n->kind != SJ_IR_INS || n->ins.guard || n->ins.nargs || !n->ins.dst ||
        f->regs[n->ins.dst].is_var || !sj_ir_is_pure(&n->ins))
      return 0;
  }
  int *copy = calloc((size_t)f->nregs + 1, sizeof *copy); /* head's registers: their copies */
  if (!copy) abort();
  int nregs = f->nregs;
  for (int i = 0; i < loop->head.n; i++) {
    const sj_ir_ins *ins = &loop->head.v[i]->ins;
    sj_ir_node *c = sj_ir_node_new(SJ_IR_INS);
    c->ins = *ins;
    sj_ir_val *v[] = {&c->ins.a, &c->ins.b, &c->ins.c};
    for (int k = 0; k < 3; k++) {
      if (v[k]->kind != SJ_V_REG) continue;
      if (v[k]->reg == loop->iter)
        *v[k] = loop->init;
      else if (v[k]->reg < nregs && copy[v[k]->reg])
        v[k]->reg = copy[v[k]->reg];
    }
    copy[ins->dst] = c->ins.dst = sj_ir_new_reg(f, f->regs[ins->dst].type, 0);
    sj_ir_block_insert(out, (*at)++, c);
  }
  int first = loop->cond.reg < nregs ? copy[loop->cond.reg] : 0;
  free(copy);
  return first;
}

static void note_assigned(const sj_ir_block *b, char *in_loop) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      if (n->ins.dst) in_loop[n->ins.dst] = 1;
      continue;
    }
    if (n->kind == SJ_IR_LOOP) in_loop[n->iter] = 1;
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) note_assigned(blocks[k], in_loop);
  }
}

void sj_ir_promote(sj_ir_func *f, sj_ir_node *loop, sj_ir_block *out, int *at) {
  scan s = {.f = f, .in_loop = calloc((size_t)f->nregs + 1, 1)};
  if (!s.in_loop) abort();
  s.in_loop[loop->iter] = 1;
  sj_ir_block *parts[] = {&loop->head, &loop->body, &loop->latch};
  for (int k = 0; k < 3; k++) note_assigned(parts[k], s.in_loop);
  for (int k = 0; k < 3; k++) scan_block(&s, parts[k], k < 2);
  free(s.in_loop);
  if (s.shared_work) return;
  int first = 0;
  for (int i = 0; i < s.n; i++) {
    const group *g = &s.g[i];
    if (g->spoilt || !g->every_iteration) continue;
    if (!first && !(first = first_test(f, loop, out, at))) return;
    int r = sj_ir_new_reg(f, g->type, 0);
    f->regs[r].is_var = 1;
    /* a value where the loop does not run, for moves of r that later passes hoist */
    sj_ir_val zero = sj_ir_type_is_float(g->type) ? sj_ir_float(g->type, 0) : sj_ir_int(g->type, 0);
    sj_ir_block_insert(out, (*at)++, sj_ir_ins_node(SJ_IR_MOV, g->type, r, zero, (sj_ir_val){0}));
    sj_ir_node *ld =
        sj_ir_ins_node(SJ_IR_LD, g->type, r, sj_ir_reg_val(f, g->base), (sj_ir_val){0});
    ld->ins.imm = g->imm;
    ld->ins.guard = first;
    sj_ir_block_insert(out, (*at)++, ld);
    replace(f, &loop->head, g, r);
    replace(f, &loop->body, g, r);
    replace(f, &loop->latch, g, r);
    if (!g->stores) continue;
    sj_ir_node *st =
        sj_ir_ins_node(SJ_IR_ST, g->type, 0, sj_ir_reg_val(f, g->base), sj_ir_reg_val(f, r));
    st->ins.imm = g->imm;
    st->ins.guard = first;
    sj_ir_block_insert(out, *at + 1, st);
  }
}

/* --- values carried to the next iteration --- */

static void note_use(int *reg, void *user) {
  int *r = user;
  if (*reg == r[0]) r[1] = 1;
}

/* Whether node n (an instruction, or any in a loop or an if, or its control) reads r. */
static int reads(sj_ir_node *n, int r) {
  int found[2] = {r, 0};
  if (n->kind == SJ_IR_INS) {
    sj_ir_foreach_use(&n->ins, note_use, found);
    return found[1];
  }
  const sj_ir_val *v[] = {&n->init, &n->step, &n->cond};
  for (int k = 0; k < 3; k++)
    if (v[k]->kind == SJ_V_REG && v[k]->reg == r) return 1;
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < blocks[k]->n; i++)
      if (reads(blocks[k]->v[i], r)) return 1;
  return 0;
}

static void rename_use(sj_ir_val *v, int from, int to) {
  if (v->kind == SJ_V_REG && v->reg == from) v->reg = to;
}

static void rename_in(sj_ir_node *n, int from, int to) {
  if (n->kind == SJ_IR_INS) {
    sj_ir_rename_uses(&n->ins, from, to);
    return;
  }
  rename_use(&n->init, from, to), rename_use(&n->step, from, to), rename_use(&n->cond, from, to);
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < blocks[k]->n; i++) rename_in(blocks[k]->v[i], from, to);
}

/* The stride of pointer p over the loop: the constant its latch adds, p assigned nowhere else
 * (assigned: by register, in the head or body); 0 where it is no such pointer. */
static long stride(const sj_ir_func *f, sj_ir_node *loop, int p, const char *assigned) {
  if (!f->regs[p].is_var || assigned[p]) return 0;
  long s = 0;
  for (int i = 0; i < loop->latch.n; i++) {
    const sj_ir_node *n = loop->latch.v[i];
    if (n->kind != SJ_IR_INS || n->ins.dst != p) continue;
    if (s || n->ins.op != SJ_IR_PTRADD || n->ins.guard || n->ins.a.kind != SJ_V_REG ||
        n->ins.a.reg != p || n->ins.b.kind != SJ_V_INT || !n->ins.b.i)
      return 0;
    s = n->ins.b.i;
  }
  return s;
}

typedef struct access_scan {
  const sj_ir_func *f;
  int p, array;
  int other; /* a store to p's array not through p, an unknown address, work with other threads */
  long stores[8]; /* the offsets of stores through p */
  int nstores;
} access_scan;

static void note_array_access(sj_ir_ins *ins, void *user) {
  access_scan *s = user;
  if (ins->op == SJ_IR_BARRIER || ins->op == SJ_IR_LAUNCH || ins->op == SJ_IR_SHFL) s->other = 1;
  if (ins->op != SJ_IR_LD && ins->op != SJ_IR_ST && ins->op != SJ_IR_ATOM) return;
  if (ins->a.kind != SJ_V_REG) {
    s->other = 1;
    return;
  }
  const sj_ir_reg *r = &s->f->regs[ins->a.reg];
  if (r->space != s->f->regs[s->p].space) return;
  if (r->array != s->array && r->array >= 0 && s->array >= 0) return; /* another array */
  if (ins->op == SJ_IR_LD) return;                                    /* loads change nothing */
  if (ins->a.reg != s->p || ins->op == SJ_IR_ATOM ||
      s->nstores == (int)(sizeof s->stores / sizeof *s->stores))
    s->other = 1;
  else
    s->stores[s->nstores++] = ins->imm;
}

static int stored(const access_scan *s, long imm) {
  for (int i = 0; i < s->nstores; i++)
    if (s->stores[i] == imm) return 1;
  return 0;
}

/* The top-level unguarded load of [p + imm] in body at or after from, or -1. */
static int load_at(const sj_ir_block *body, int from, int p, long imm) {
  for (int i = from; i < body->n; i++) {
    const sj_ir_ins *in = &body->v[i]->ins;
    if (body->v[i]->kind == SJ_IR_INS && in->op == SJ_IR_LD && !in->guard &&
        in->a.kind == SJ_V_REG && in->a.reg == p && in->imm == imm)
      return i;
  }
  return -1;
}

static void note_def(sj_ir_ins *ins, void *user) {
  if (ins->dst) ((char *)user)[ins->dst] = 1;
}

/* The values loop carries, where it lies at *at of out (*at moves on past what goes in front). */
static void carry_loop(sj_ir_func *f, sj_ir_node *loop, sj_ir_block *out, int *at) {
  if (loop->step.kind != SJ_V_INT) return;
  char *assigned = calloc((size_t)f->nregs + 1, 1);
  if (!assigned) abort();
  sj_ir_foreach_ins(&loop->head, note_def, assigned);
  sj_ir_foreach_ins(&loop->body, note_def, assigned);
  int first = 0;
  sj_ir_block *body = &loop->body;
  access_scan scan = {.p = 0};
  for (int i = 0; i < body->n; i++) {
    sj_ir_node *n1 = body->v[i];
    sj_ir_ins *l1 = &n1->ins;
    if (n1->kind != SJ_IR_INS || l1->op != SJ_IR_LD || l1->guard || l1->a.kind != SJ_V_REG ||
        f->regs[l1->dst].is_var || load_at(body, 0, l1->a.reg, l1->imm) != i)
      continue;
    int p = l1->a.reg;
    long s = stride(f, loop, p, assigned);
    if (!s) continue;
    int j = load_at(body, i + 1, p, l1->imm + s);
    if (j < 0 || body->v[j]->ins.type != l1->type || f->regs[body->v[j]->ins.dst].is_var) continue;
    if (scan.p != p) { /* the loop's accesses, once for each pointer */
      scan = (access_scan){f, p, f->regs[p].array, 0, {0}, 0};
      sj_ir_block *parts[] = {&loop->head, body, &loop->latch};
      for (int k = 0; k < 3; k++) sj_ir_foreach_ins(parts[k], note_array_access, &scan);
    }
    if (scan.other || stored(&scan, l1->imm) || stored(&scan, l1->imm + s)) continue;
    /* the value this iteration loads at j is the next one's at i: in one register, where i's is
     * read no more at j (no move then) */
    int late = 0, l2 = body->v[j]->ins.dst;
    for (int k = j; k < body->n && !late; k++) late = reads(body->v[k], l1->dst);
    for (int k = 0; k < loop->head.n && !late; k++)
      late = reads(loop->head.v[k], l1->dst) || reads(loop->head.v[k], l2);
    for (int k = 0; k < loop->latch.n && !late; k++) late = reads(loop->latch.v[k], l1->dst);
    if (late) continue;
    if (!first && !(first = first_test(f, loop, out, at))) break;
    int v = sj_ir_new_reg(f, l1->type, 0);
    f->regs[v] = f->regs[l1->dst];
    f->regs[v].is_var = 1;
    sj_ir_node *pre = sj_ir_ins_node(SJ_IR_LD, l1->type, v, l1->a, (sj_ir_val){0});
    pre->ins.imm = l1->imm;
    pre->ins.guard = first;
    sj_ir_block_insert(out, (*at)++, pre);
    for (int k = i + 1; k < body->n; k++) rename_in(body->v[k], l1->dst, v);
    for (int k = j + 1; k < body->n; k++) rename_in(body->v[k], l2, v);
    for (int k = 0; k < loop->latch.n; k++) rename_in(loop->latch.v[k], l2, v);
    body->v[j]->ins.dst = v;
    sj_ir_node_free(n1);
    memmove(body->v + i, body->v + i + 1, (size_t)(body->n - i - 1) * sizeof *body->v);
    body->n--;
    i--;
  }
  free(assigned);
}

static void carry_block(sj_ir_func *f, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) continue;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) carry_block(f, blocks[k]);
    if (n->kind == SJ_IR_LOOP) carry_loop(f, n, b, &i);
  }
}

void sj_ir_carry(sj_ir_func *f) {
  if (f->kind == SJ_FUNC_KERNEL) carry_block(f, &f->body);
}
