/* Copies and integer constants forwarded into the instructions that read them, what they make
 * constant folded, and assignments of variables that the code assigns again before reading
 * them, or never reads, dropped; in straight-line code for variables, everywhere for values.
 *
 * Why: a local that a branch assigns (`if (in) { s += x; n++; }`) becomes a variable that both
 * branches copy into, and where the ranges decide the branch (astgen/range.c) only the copies
 * are left: two moves a point of an image filter's sum, more than its loads and additions. The
 * passes that follow treat values only. */
#include "astgen/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct copies {
  sj_ir_func *f;
  int *from;      /* by register: the register it holds a copy of, or 0 */
  char *constant; /* by register: it holds the integer value[reg] */
  long *value;
  int *holders; /* variables whose from or constant is set, to forget them */
  int nholders;
  int *copiers; /* by register: the holders whose from it is */
  /* by register: assigned again further on with no read between, where it equals epoch */
  unsigned *killed, epoch;
  int *uses; /* by register: its reads, once copies are forwarded */
} copies;

static void forget(copies *c, int k) {
  int h = c->holders[k];
  c->copiers[c->from[h]]--;
  c->from[h] = c->constant[h] = 0;
  c->holders[k] = c->holders[--c->nholders];
}

static void forget_all(copies *c) {
  while (c->nholders) forget(c, c->nholders - 1);
}

/* reg is assigned: it holds no copy now, nor does any register that copied it. */
static void assigned(copies *c, int reg) {
  int held = c->constant[reg] || c->from[reg];
  if (!held && !c->copiers[reg]) return;
  for (int k = 0; k < c->nholders; k++)
    if (c->holders[k] == reg || c->from[c->holders[k]] == reg) forget(c, k--);
}

/* v as a constant where its register holds one. */
static int as_constant(const copies *c, sj_ir_val *v) {
  if (v->kind == SJ_V_REG && c->constant[v->reg])
    return *v = sj_ir_int(c->f->regs[v->reg].type, c->value[v->reg]), 1;
  return 0;
}

/* ins a move of a constant where the constants its registers hold make it one. */
static void fold_constants(const copies *c, sj_ir_ins *ins) {
  if (ins->guard || !ins->dst || ins->nargs || ins->c.kind != SJ_V_NONE ||
      !(sj_ir_type_is_int(ins->type) || ins->op == SJ_IR_CVT))
    return;
  sj_ir_val a = ins->a, b = ins->b, v;
  int known = as_constant(c, &a) | as_constant(c, &b);
  if (!known) return;
  if (ins->op == SJ_IR_MOV)
    v = a;
  else if (!sj_ir_fold(ins->op, ins->type, a, b, &v))
    return;
  ins->op = SJ_IR_MOV;
  ins->a = v, ins->b = (sj_ir_val){0};
}

static void forward_use(int *reg, void *user) {
  const copies *c = user;
  if (c->from[*reg]) *reg = c->from[*reg];
}

static void forward_val(copies *c, sj_ir_val *v) {
  if (v->kind == SJ_V_REG) forward_use(&v->reg, c);
}

static int is_copy(const sj_ir_func *f, const sj_ir_ins *ins) {
  return ins->op == SJ_IR_MOV && !ins->guard && ins->a.kind == SJ_V_REG && ins->a.reg != ins->dst &&
         ins->type != SJ_IR_PTR && f->regs[ins->a.reg].type == f->regs[ins->dst].type &&
         ins->type == f->regs[ins->dst].type;
}

static void forward_block(copies *c, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      sj_ir_ins *ins = &n->ins;
      sj_ir_foreach_use(ins, forward_use, c);
      fold_constants(c, ins);
      int d = ins->dst, var = d && c->f->regs[d].is_var;
      if (!d) continue;
      assigned(c, d);
      if (!ins->guard && ins->op == SJ_IR_MOV && ins->a.kind == SJ_V_INT &&
          sj_ir_type_is_int(ins->type)) {
        c->constant[d] = 1, c->value[d] = ins->a.i;
      } else if (var && is_copy(c->f, ins)) {
        c->from[d] = ins->a.reg;
      }
      if (var && (c->constant[d] || c->from[d])) {
        c->holders[c->nholders++] = d;
        c->copiers[c->from[d]]++;
      }
      continue;
    }
    if (n->kind == SJ_IR_IF) { /* both branches start from what holds before it */
      forward_val(c, &n->cond);
      int held = c->nholders;
      long *was = malloc((size_t)(3 * held + 1) * sizeof *was);
      if (!was) abort();
      for (int k = 0; k < held; k++) {
        int h = c->holders[k];
        was[3 * k] = h, was[3 * k + 1] = c->from[h], was[3 * k + 2] = c->value[h];
      }
      forward_block(c, &n->then);
      for (int k = 0; k < held; k++) {
        int h = (int)was[3 * k];
        c->holders[k] = h, c->from[h] = (int)was[3 * k + 1], c->value[h] = was[3 * k + 2];
        c->constant[h] = !c->from[h];
        c->copiers[c->from[h]]++;
      }
      c->nholders = held;
      free(was);
      forward_block(c, &n->other);
      continue;
    }
    forward_val(c, &n->init); /* a loop's: read before it */
    forget_all(c);
    forward_block(c, &n->head);
    forward_block(c, &n->body);
    forward_block(c, &n->latch);
  }
  forget_all(c);
}

static void read(int *reg, void *user) {
  ((copies *)user)->killed[*reg] = 0;
}

static void forget_kills(copies *c) {
  c->epoch++;
}

static void read_val(copies *c, const sj_ir_val *v) {
  if (v->kind == SJ_V_REG) c->killed[v->reg] = 0;
}

/* What node n reads anywhere in it. */
static void read_node(copies *c, sj_ir_node *n) {
  if (n->kind == SJ_IR_INS) return sj_ir_foreach_use(&n->ins, read, c);
  read_val(c, &n->cond), read_val(c, &n->init), read_val(c, &n->step);
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < blocks[k]->n; i++) read_node(c, blocks[k]->v[i]);
}

static int droppable(const sj_ir_ins *ins) {
  return ins->op != SJ_IR_LD && sj_ir_is_pure(ins);
}

/* Backwards: an assignment of a variable that nothing reads, or that a later one of the block
 * overwrites unread, or that the function's end follows unread (end). */
static void drop_block(copies *c, sj_ir_block *b, int end) {
  forget_kills(c);
  if (end)
    for (int r = 0; r < c->f->nregs; r++) c->killed[r] = c->epoch;
  for (int i = b->n - 1; i >= 0; i--) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      read_node(c, n); /* an assignment in it may not run: it overwrites nothing */
      continue;
    }
    sj_ir_ins *ins = &n->ins;
    int d = ins->dst;
    if (d && c->f->regs[d].is_var && (!c->uses[d] || c->killed[d] == c->epoch) && droppable(ins)) {
      sj_ir_node_free(n);
      memmove(b->v + i, b->v + i + 1, (size_t)(b->n - i - 1) * sizeof *b->v);
      b->n--;
      continue;
    }
    if (d && !ins->guard) c->killed[d] = c->epoch;
    sj_ir_foreach_use(ins, read, c);
  }
  for (int i = 0; i < b->n; i++) { /* the blocks inside, each from its own end */
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) continue;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) drop_block(c, blocks[k], 0);
  }
}

void sj_ir_forward_copies(sj_ir_func *f) {
  size_t n = (size_t)f->nregs + 1;
  copies c = {.f = f,
              .from = calloc(n, sizeof *c.from),
              .constant = calloc(n, 1),
              .value = calloc(n, sizeof *c.value),
              .holders = calloc(n, sizeof *c.holders),
              .copiers = calloc(n, sizeof *c.copiers),
              .killed = calloc(n, sizeof *c.killed),
              .epoch = 1};
  if (!c.from || !c.constant || !c.value || !c.holders || !c.copiers || !c.killed) abort();
  forward_block(&c, &f->body);
  c.uses = sj_ir_count_uses(f);
  drop_block(&c, &f->body, 1);
  free(c.from);
  free(c.constant);
  free(c.value);
  free(c.holders);
  free(c.copiers);
  free(c.killed);
  free(c.uses);
}
