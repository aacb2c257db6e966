/* The IR's values, functions, blocks and traversals. */
#include "astgen/ir.h"

#include "base/ast.h"

#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) abort(); /* the compile cannot go on without its IR */
  return q;
}

sj_ir_val sj_ir_reg_val(const sj_ir_func *f, int reg) {
  sj_ir_val v = {SJ_V_REG, f->regs[reg].type, reg, 0, 0};
  return v;
}

sj_ir_val sj_ir_int(sj_ir_type type, long v) {
  sj_ir_val x = {SJ_V_INT, type, 0, v, 0};
  return x;
}

sj_ir_val sj_ir_float(sj_ir_type type, double v) {
  sj_ir_val x = {SJ_V_FLOAT, type, 0, 0, type == SJ_IR_F32 ? (double)(float)v : v};
  return x;
}

int sj_ir_is_imm(sj_ir_val v) {
  return v.kind == SJ_V_INT || v.kind == SJ_V_FLOAT;
}

int sj_ir_type_is_float(sj_ir_type t) {
  return t == SJ_IR_F32 || t == SJ_IR_F64;
}

int sj_ir_type_size(sj_ir_type t) {
  static const int sizes[SJ_IR_NTYPES] = {
      [SJ_IR_PRED] = 1, [SJ_IR_S32] = 4, [SJ_IR_S64] = 8, [SJ_IR_F32] = 4,
      [SJ_IR_F64] = 8,  [SJ_IR_PTR] = 8, [SJ_IR_S8] = 1,  [SJ_IR_U8] = 1,
      [SJ_IR_S16] = 2,  [SJ_IR_U16] = 2, [SJ_IR_U32] = 4, [SJ_IR_U64] = 8};
  return (unsigned)t < SJ_IR_NTYPES ? sizes[t] : 8;
}

int sj_ir_type_is_unsigned(sj_ir_type t) {
  return t == SJ_IR_U8 || t == SJ_IR_U16 || t == SJ_IR_U32 || t == SJ_IR_U64;
}

int sj_ir_type_is_int(sj_ir_type t) {
  return t == SJ_IR_S32 || t == SJ_IR_S64 || (t >= SJ_IR_S8 && t <= SJ_IR_U64);
}

/* sj_ir_math lists base/ast.h's functions from exp on, in their order. */
typedef char sj_ir_math_order[SJ_FN_FMOD - SJ_FN_EXP == 2 * SJ_MATH_FMOD ? 1 : -1];

static sj_func_id func_of(sj_ir_math m, sj_ir_type t) {
  return (sj_func_id)(SJ_FN_EXP + 2 * m + (t == SJ_IR_F32));
}

const char *sj_ir_math_name(sj_ir_math m, sj_ir_type t) {
  return (unsigned)m < SJ_MATH_N ? sj_func_name(func_of(m, t)) : "?";
}

int sj_ir_math_nargs(sj_ir_math m) {
  return (unsigned)m < SJ_MATH_N ? sj_func_nargs(func_of(m, SJ_IR_F64)) : 0;
}

int sj_ir_is_pure(const sj_ir_ins *ins) {
  switch (ins->op) {
  case SJ_IR_DIV:
  case SJ_IR_REM: /* integers trap on a zero divisor; only constant ones are safe */
    return sj_ir_type_is_float(ins->type) ||
           (ins->b.kind == SJ_V_INT && ins->b.i != 0 && ins->b.i != -1);
  case SJ_IR_LD:
  case SJ_IR_ST:
  case SJ_IR_BARRIER:
  case SJ_IR_LAUNCH:
  case SJ_IR_TRAP:
  case SJ_IR_SHFL: /* the whole warp's, where it is */
  case SJ_IR_ATOM:
    return 0;
  default:
    return 1;
  }
}

sj_ir_func *sj_ir_func_new(sj_ir_func_kind kind, const char *name) {
  sj_ir_func *f = calloc(1, sizeof *f);
  if (!f) abort();
  f->kind = kind;
  f->name = strdup(name);
  f->nregs = 1; /* register 0 is "none" */
  f->regs = xrealloc(NULL, sizeof *f->regs);
  memset(f->regs, 0, sizeof *f->regs);
  for (int d = 0; d < 3; d++) f->grid[d] = f->block[d] = 1;
  return f;
}

void sj_ir_func_free(sj_ir_func *f) {
  if (!f) return;
  sj_ir_block_clear(&f->body);
  free(f->name);
  free(f->params);
  free(f->shared);
  free(f->regs);
  free(f->why);
  free(f);
}

void sj_ir_module_free(sj_ir_module *m) {
  if (!m) return;
  for (int i = 0; i < m->nfuncs; i++) sj_ir_func_free(m->funcs[i]);
  free(m->funcs);
  free(m->traps);
  free(m);
}

int sj_ir_add_param(sj_ir_func *f, sj_ir_param p) {
  f->params = xrealloc(f->params, (f->nparams + 1) * sizeof *f->params);
  f->params[f->nparams] = p;
  return f->nparams++;
}

int sj_ir_add_shared(sj_ir_func *f, sj_ir_shared a) {
  f->shared = xrealloc(f->shared, (f->nshared + 1) * sizeof *f->shared);
  f->shared[f->nshared] = a;
  return f->nshared++;
}

int sj_ir_find_param(const sj_ir_func *f, sj_ir_param_kind kind, int index) {
  for (int i = 0; i < f->nparams; i++)
    if (f->params[i].kind == kind && f->params[i].index == index) return i;
  return -1;
}

int sj_ir_new_reg(sj_ir_func *f, sj_ir_type type, int level) {
  /* grown by powers of two: registers are created one at a time, many thousands of them */
  if ((f->nregs & (f->nregs - 1)) == 0)
    f->regs = xrealloc(f->regs, 2 * (size_t)f->nregs * sizeof *f->regs);
  sj_ir_reg *r = &f->regs[f->nregs];
  memset(r, 0, sizeof *r);
  r->type = type;
  r->array = -1;
  r->level = level;
  return f->nregs++;
}

int sj_ir_may_alias(const sj_ir_func *f, int ptr, long offset, int load_ptr, long load_offset) {
  const sj_ir_reg *p = &f->regs[ptr], *q = &f->regs[load_ptr];
  if (p->space != q->space || (p->array >= 0 && q->array >= 0 && p->array != q->array)) return 0;
  return ptr != load_ptr || offset == load_offset;
}

sj_ir_node *sj_ir_node_new(sj_ir_node_kind kind) {
  sj_ir_node *n = calloc(1, sizeof *n);
  if (!n) abort();
  n->kind = kind;
  return n;
}

sj_ir_node *sj_ir_ins_node(sj_ir_op op, sj_ir_type type, int dst, sj_ir_val a, sj_ir_val b) {
  sj_ir_node *n = sj_ir_node_new(SJ_IR_INS);
  n->ins.op = op;
  n->ins.type = type;
  n->ins.dst = dst;
  n->ins.a = a;
  n->ins.b = b;
  return n;
}

void sj_ir_block_insert(sj_ir_block *b, int at, sj_ir_node *n) {
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 8;
    b->v = xrealloc(b->v, (size_t)b->cap * sizeof *b->v);
  }
  memmove(b->v + at + 1, b->v + at, (size_t)(b->n - at) * sizeof *b->v);
  b->v[at] = n;
  b->n++;
}

void sj_ir_block_push(sj_ir_block *b, sj_ir_node *n) {
  sj_ir_block_insert(b, b->n, n);
}

void sj_ir_node_free(sj_ir_node *n) {
  if (!n) return;
  free(n->ins.args);
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int i = 0; i < 5; i++) sj_ir_block_clear(blocks[i]);
  free(n);
}

void sj_ir_block_clear(sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) sj_ir_node_free(b->v[i]);
  free(b->v);
  memset(b, 0, sizeof *b);
}

void sj_ir_foreach_ins(sj_ir_block *b, void (*fn)(sj_ir_ins *ins, void *user), void *user) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      fn(&n->ins, user);
    } else if (n->kind == SJ_IR_LOOP) {
      sj_ir_foreach_ins(&n->head, fn, user);
      sj_ir_foreach_ins(&n->body, fn, user);
      sj_ir_foreach_ins(&n->latch, fn, user);
    } else {
      sj_ir_foreach_ins(&n->then, fn, user);
      sj_ir_foreach_ins(&n->other, fn, user);
    }
  }
}

void sj_ir_foreach_use(sj_ir_ins *ins, void (*fn)(int *reg, void *user), void *user) {
  sj_ir_val *v[3] = {&ins->a, &ins->b, &ins->c};
  for (int i = 0; i < 3; i++)
    if (v[i]->kind == SJ_V_REG) fn(&v[i]->reg, user);
  for (int i = 0; i < ins->nargs; i++)
    if (ins->args[i].kind == SJ_V_REG) fn(&ins->args[i].reg, user);
  if (ins->guard) fn(&ins->guard, user);
}

static void rename_reg(int *reg, void *user) {
  const int *from_to = user;
  if (*reg == from_to[0]) *reg = from_to[1];
}

void sj_ir_rename_uses(sj_ir_ins *ins, int from, int to) {
  int from_to[2] = {from, to};
  sj_ir_foreach_use(ins, rename_reg, from_to);
}

static void count_use(int *reg, void *user) {
  ((int *)user)[*reg]++;
}

static void count_ins(sj_ir_ins *ins, void *user) {
  sj_ir_foreach_use(ins, count_use, user);
}

/* Loop and if operands count too: they are read by the control structure itself. */
static void count_control(const sj_ir_block *b, int *uses) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    const sj_ir_val *v[3] = {&n->init, &n->step, &n->cond};
    if (n->kind == SJ_IR_INS) continue;
    for (int k = 0; k < 3; k++)
      if (v[k]->kind == SJ_V_REG) uses[v[k]->reg]++;
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) count_control(blocks[k], uses);
  }
}

void sj_ir_add_uses(const sj_ir_block *b, int *uses) {
  sj_ir_foreach_ins((sj_ir_block *)b, count_ins, uses);
  count_control(b, uses);
}

int *sj_ir_count_uses(const sj_ir_func *f) {
  int *uses = calloc((size_t)f->nregs + 1, sizeof *uses);
  if (!uses) abort();
  sj_ir_add_uses(&f->body, uses);
  return uses;
}
