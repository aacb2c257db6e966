/* Common subexpressions across the IR's blocks. The builder numbers values within a region of
 * control flow (astgen/irbuild.c); what unrolled code repeats in sibling regions, each step of
 * a tile under a guard of its own, or each loop of a copy whose invariant addresses were
 * hoisted before it, is computed once here:
 *   - integer work of an if's branches whose operands come from before the if moves before
 *     it (it cannot fail: sj_ir_is_pure), where later code may share it;
 *   - a pure instruction equal to one that dominates it (earlier in its block or in a block
 *     around it) is dropped and its uses take the earlier value.
 * Other floating-point work stays where it is: executed in vain it would cost real time. Work
 * on the kernel's parameters alone (`step / (1.0f / Cap)` in each branch of a ?: chain) moves
 * out of an if whose two branches both compute it, so that no thread does more than before. */
#include "astgen/ir.h"

#include <stdlib.h>
#include <string.h>

/* --- value numbering over dominating blocks --- */

enum { NBUCKETS = 4096 };

typedef struct entry {
  sj_ir_ins key; /* dst: the value */
  int next;      /* the bucket's previous head */
  unsigned bucket;
  int pos; /* of its instruction, in program order */
} entry;

typedef struct table {
  entry *v;
  int n, cap;
  int buckets[NBUCKETS];
  int *rename; /* by register: the register its uses read instead, or 0 */
  int pos;     /* of the instruction at hand */
} table;

/* With sj_ir_func.share_near, an integer instruction of one cycle is computed again rather
 * than shared with an equal more than FAR instructions before it: a hybrid tile's steps are
 * symmetric (step k's window bounds are step 2h + 1 - k's), and each kept for its mirror held
 * 100 of a 1-D tile's 131 estimated registers (jacobi-1d at h=24: its steps stayed a loop).
 * Elsewhere sharing saves more than it holds: fdtd-2d hybrid ran 19% more instructions. */
enum { FAR = 128 };

static int cheap(const sj_ir_ins *ins) {
  if (sj_ir_type_is_float(ins->type) || (ins->op == SJ_IR_SETP && sj_ir_type_is_float(ins->a.type)))
    return 0;
  switch (ins->op) {
  case SJ_IR_MOV:
  case SJ_IR_ADD:
  case SJ_IR_SUB:
  case SJ_IR_MIN:
  case SJ_IR_MAX:
  case SJ_IR_NEG:
  case SJ_IR_AND:
  case SJ_IR_OR:
  case SJ_IR_NOT:
  case SJ_IR_SETP:
  case SJ_IR_SELP:
  case SJ_IR_PTRADD:
  case SJ_IR_BAND:
  case SJ_IR_BOR:
  case SJ_IR_XOR:
  case SJ_IR_SHL:
  case SJ_IR_SHR:
  case SJ_IR_CVT:
    return 1;
  default:
    return 0;
  }
}

static void rename_val(const table *t, sj_ir_val *v) {
  if (v->kind == SJ_V_REG && t->rename[v->reg]) v->reg = t->rename[v->reg];
}

static unsigned mix(unsigned h, long x) {
  return (h ^ (unsigned)x ^ (unsigned)(x >> 32)) * 16777619u;
}

static unsigned hash_val(unsigned h, sj_ir_val v) {
  long bits = 0;
  if (v.kind == SJ_V_FLOAT) memcpy(&bits, &v.f, sizeof bits);
  return mix(mix(mix(h, v.kind), v.type), v.kind == SJ_V_REG   ? v.reg
                                          : v.kind == SJ_V_INT ? v.i
                                                               : bits);
}

static unsigned full_hash(const sj_ir_ins *ins) {
  unsigned h = mix(mix(mix(mix(2166136261u, ins->op), ins->type), ins->cmp), ins->imm);
  return hash_val(hash_val(hash_val(mix(h, ins->approx), ins->a), ins->b), ins->c);
}

static unsigned hash(const sj_ir_ins *ins) {
  return full_hash(ins) % NBUCKETS;
}

static int same_val(sj_ir_val x, sj_ir_val y) {
  if (x.kind != y.kind || x.type != y.type) return 0;
  if (x.kind == SJ_V_REG) return x.reg == y.reg;
  if (x.kind == SJ_V_INT) return x.i == y.i;
  if (x.kind == SJ_V_FLOAT) return memcmp(&x.f, &y.f, sizeof x.f) == 0;
  return 1;
}

static int same(const sj_ir_ins *x, const sj_ir_ins *y) {
  return x->op == y->op && x->type == y->type && x->cmp == y->cmp && x->imm == y->imm &&
         x->approx == y->approx && same_val(x->a, y->a) && same_val(x->b, y->b) &&
         same_val(x->c, y->c);
}

static int reads_var(const sj_ir_func *f, const sj_ir_ins *ins) {
  const sj_ir_val *v[] = {&ins->a, &ins->b, &ins->c};
  for (int k = 0; k < 3; k++)
    if (v[k]->kind == SJ_V_REG && f->regs[v[k]->reg].is_var) return 1;
  return 0;
}

static void forget(table *t, int scope) {
  while (t->n > scope) {
    const entry *e = &t->v[--t->n];
    t->buckets[e->bucket] = e->next;
  }
}

/* --- integer work out of branches, where an equal computation lies elsewhere --- */

/* Whether ins may move: 1 for pure integer work, 2 for other pure work on parameters alone
 * (fixed: by register, a value computed from parameters and constants only), 0 else. */
static int movable(const sj_ir_func *f, const char *fixed, const sj_ir_ins *ins) {
  if (!ins->dst || ins->guard || f->regs[ins->dst].is_var || !sj_ir_is_pure(ins) ||
      ins->op == SJ_IR_SHFL || reads_var(f, ins))
    return 0;
  if (!sj_ir_type_is_float(ins->type) && ins->op != SJ_IR_MATH &&
      !(ins->op == SJ_IR_SETP && sj_ir_type_is_float(ins->a.type)))
    return 1;
  return fixed[ins->dst] ? 2 : 0;
}

/* Movable instructions counted by their whole hash (open addressing; a key whose count fell to
 * 0 stays): counted by a hash of a few thousand buckets, an unrolled kernel's every bucket
 * held some instruction, so that nearly all integer work seemed to have an equal and left its
 * branch (the 70 step bounds of a split tile's partial code, all live from its top). */
typedef struct counts {
  unsigned *key;
  int *n;
  unsigned mask; /* slots - 1 */
} counts;

static void counts_init(counts *c, int nins) {
  unsigned slots = 64;
  while (slots < 2u * (unsigned)nins) slots *= 2;
  free(c->key);
  free(c->n);
  c->key = calloc(slots, sizeof *c->key);
  c->n = calloc(slots, sizeof *c->n);
  if (!c->key || !c->n) abort();
  c->mask = slots - 1;
}

static void count_ins(sj_ir_ins *ins, void *user) {
  (void)ins;
  (*(int *)user)++;
}

/* Where key is in c, or the empty slot where it would go. */
static unsigned probe(const counts *c, unsigned key) {
  unsigned i = key & c->mask;
  while (c->key[i] && c->key[i] != key) i = (i + 1) & c->mask;
  return i;
}

static unsigned key_of(const sj_ir_ins *ins) {
  return full_hash(ins) | 1; /* 0 marks an empty slot */
}

/* The count of ins's hash in c, its slot made where it has none. */
static int *slot(counts *c, const sj_ir_ins *ins) {
  unsigned key = key_of(ins), i = probe(c, key);
  c->key[i] = key;
  return &c->n[i];
}

/* How many instructions of ins's hash c counts. */
static int count(const counts *c, const sj_ir_ins *ins) {
  unsigned i = probe(c, key_of(ins));
  return c->key[i] ? c->n[i] : 0;
}

typedef struct counting {
  const sj_ir_func *f;
  const char *fixed;
  counts *c;
} counting;

static void count_movable(sj_ir_ins *ins, void *user) {
  const counting *k = user;
  if (movable(k->f, k->fixed, ins)) (*slot(k->c, ins))++;
}

static void uncount_movable(sj_ir_ins *ins, void *user) {
  const counting *k = user;
  if (movable(k->f, k->fixed, ins)) (*slot(k->c, ins))--;
}

/* c (all zero) counts b's movable instructions by hash; undone by uncount, so that a branch's
 * counts cost its size, not the table's. */
static void count_block(const sj_ir_func *f, const char *fixed, sj_ir_block *b, counts *c) {
  counting k = {f, fixed, c};
  sj_ir_foreach_ins(b, count_movable, &k);
}

static void uncount_block(const sj_ir_func *f, const char *fixed, sj_ir_block *b, counts *c) {
  counting k = {f, fixed, c};
  sj_ir_foreach_ins(b, uncount_movable, &k);
}

static int fixed_val(const char *fixed, sj_ir_val v) {
  return v.kind != SJ_V_REG || fixed[v.reg];
}

/* Registers whose value comes from the parameters and constants alone. */
static void note_fixed(sj_ir_ins *ins, void *user) {
  const void **arg = user;
  const sj_ir_func *f = arg[0];
  char *fixed = (char *)arg[1];
  if (!ins->dst || ins->guard || f->regs[ins->dst].is_var || !sj_ir_is_pure(ins) ||
      ins->op == SJ_IR_SPECIAL || ins->op == SJ_IR_SHFL || ins->nargs)
    return;
  fixed[ins->dst] =
      fixed_val(fixed, ins->a) && fixed_val(fixed, ins->b) && fixed_val(fixed, ins->c);
}

static void note_thread(sj_ir_ins *ins, void *user) {
  char *per_thread = user;
  if (!ins->dst) return;
  const sj_ir_val *v[] = {&ins->a, &ins->b, &ins->c};
  int any =
      ins->op == SJ_IR_SPECIAL && ins->imm >= SJ_SPECIAL_TID_X && ins->imm <= SJ_SPECIAL_TID_Z;
  for (int k = 0; k < 3; k++) any |= v[k]->kind == SJ_V_REG && per_thread[v[k]->reg];
  if (any) per_thread[ins->dst] = 1;
}

static void mark_def(sj_ir_ins *ins, void *user) {
  if (ins->dst) ((char *)user)[ins->dst] = 1;
}

static void unmark_def(sj_ir_ins *ins, void *user) {
  if (ins->dst) ((char *)user)[ins->dst] = 0;
}

static int defined_in(const char *in, sj_ir_val v) {
  return v.kind == SJ_V_REG && in[v.reg];
}

typedef struct lifting {
  sj_ir_func *f;
  char *per_thread; /* by register: its value may differ between the threads of a block */
  char *in;         /* by register: defined in the branch at hand */
  char *fixed;      /* by register: computed from parameters and constants alone */
  counts all;       /* over the function */
  counts branch;    /* scratch */
  int moved;
} lifting;

/* Whether b (or a block in it) computes what ins computes. */
static int holds_equal(const sj_ir_block *b, const sj_ir_ins *ins) {
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) {
      if (same(&n->ins, ins)) return 1;
      continue;
    }
    const sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++)
      if (holds_equal(blocks[k], ins)) return 1;
  }
  return 0;
}

/* Moves the movable instructions of branch whose operands are defined outside it, and that
 * have an equal (by hash) outside it, to position *at of out. Floating-point work only where
 * the other branch of its if computes it too: a thread that takes neither does none. */
static void lift(lifting *s, sj_ir_block *branch, const sj_ir_block *sibling, sj_ir_block *out,
                 int *at) {
  /* Only a movable instruction with an equal elsewhere in the function may move; most
   * branches (those of nested ifs, at every level) have none, and marking and counting their
   * whole subtree for nothing was most of the pass's time in unrolled 3-D kernels. */
  int any = 0;
  for (int i = 0; i < branch->n && !any; i++) {
    const sj_ir_node *n = branch->v[i];
    any = n->kind == SJ_IR_INS && movable(s->f, s->fixed, &n->ins) && count(&s->all, &n->ins) > 1;
  }
  if (!any) return;
  int at0 = *at;
  sj_ir_foreach_ins(branch, mark_def, s->in);
  count_block(s->f, s->fixed, branch, &s->branch);
  for (int i = 0; i < branch->n;) {
    sj_ir_node *n = branch->v[i];
    const sj_ir_ins *ins = &n->ins;
    int how = n->kind == SJ_IR_INS ? movable(s->f, s->fixed, ins) : 0;
    if (how && !defined_in(s->in, ins->a) && !defined_in(s->in, ins->b) &&
        !defined_in(s->in, ins->c) && count(&s->all, ins) > count(&s->branch, ins) &&
        (how == 1 || holds_equal(sibling, ins))) {
      s->in[ins->dst] = 0;
      memmove(branch->v + i, branch->v + i + 1, (size_t)(branch->n - i - 1) * sizeof *branch->v);
      branch->n--;
      sj_ir_block_insert(out, (*at)++, n);
      s->moved++;
      continue;
    }
    i++;
  }
  /* the counts and marks back to zero: what stayed, and what moved (out's nodes from at0) */
  uncount_block(s->f, s->fixed, branch, &s->branch);
  for (int i = at0; i < *at; i++) (*slot(&s->branch, &out->v[i]->ins))--;
  sj_ir_foreach_ins(branch, unmark_def, s->in);
}

/* Not out of the function's own ifs on values the same for a whole GPU block: they say
 * whether the block has work at all, and the blocks without (most of a wavefront's grid) would
 * pay for what moved. */
static void lift_block(lifting *s, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind == SJ_IR_INS) continue;
    sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
    for (int k = 0; k < 5; k++) lift_block(s, blocks[k]);
    if (n->kind != SJ_IR_IF || (b == &s->f->body && !s->per_thread[n->cond.reg])) continue;
    int at = i;
    lift(s, &n->then, &n->other, b, &at);
    lift(s, &n->other, &n->then, b, &at);
    i = at; /* the if again */
  }
}

static void number_block(sj_ir_func *f, sj_ir_block *b, table *t);

static void number_node(sj_ir_func *f, sj_ir_node *n, table *t) {
  rename_val(t, &n->init);
  rename_val(t, &n->step);
  rename_val(t, &n->cond);
  sj_ir_block *blocks[] = {&n->head, &n->body, &n->latch, &n->then, &n->other};
  for (int k = 0; k < 5; k++) {
    int scope = t->n;
    number_block(f, blocks[k], t);
    forget(t, scope); /* what a branch or a loop computed is not there after it */
  }
}

static void number_block(sj_ir_func *f, sj_ir_block *b, table *t) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      number_node(f, n, t);
      continue;
    }
    sj_ir_ins *ins = &n->ins;
    rename_val(t, &ins->a);
    rename_val(t, &ins->b);
    rename_val(t, &ins->c);
    for (int k = 0; k < ins->nargs; k++) rename_val(t, &ins->args[k]);
    if (ins->guard && t->rename[ins->guard]) ins->guard = t->rename[ins->guard];
    if (!ins->dst || ins->guard || f->regs[ins->dst].is_var || !sj_ir_is_pure(ins) ||
        ins->op == SJ_IR_SHFL || reads_var(f, ins))
      continue;
    unsigned h = hash(ins);
    int e = t->buckets[h];
    while (e >= 0 && !same(&t->v[e].key, ins)) e = t->v[e].next;
    t->pos++;
    if (e >= 0 && f->share_near && t->pos - t->v[e].pos > FAR && cheap(ins))
      e = -1; /* this one, nearer, from here on */
    if (e >= 0) {
      t->rename[ins->dst] = t->v[e].key.dst;
      sj_ir_node_free(n);
      memmove(b->v + i, b->v + i + 1, (size_t)(b->n - i - 1) * sizeof *b->v);
      b->n--, i--;
      continue;
    }
    if (t->n == t->cap) {
      t->cap = t->cap ? 2 * t->cap : 256;
      t->v = realloc(t->v, (size_t)t->cap * sizeof *t->v);
      if (!t->v) abort();
    }
    t->v[t->n] = (entry){*ins, t->buckets[h], h, t->pos};
    t->buckets[h] = t->n++;
  }
}

/* Equal computations share one value: numbering renames the later ones (dead then), and an
 * equal pair in sibling branches becomes equal text once their operands are renamed, so
 * lifting and numbering alternate until nothing moves (a few rounds: address chains). */
void sj_ir_share(sj_ir_func *f) {
  enum { ROUNDS = 8 };
  table *t = calloc(1, sizeof *t);
  lifting *s = calloc(1, sizeof *s);
  if (!t || !s) abort();
  t->rename = calloc((size_t)f->nregs + 1, sizeof *t->rename);
  s->in = calloc((size_t)f->nregs + 1, 1);
  s->per_thread = calloc((size_t)f->nregs + 1, 1);
  s->fixed = calloc((size_t)f->nregs + 1, 1);
  if (!t->rename || !s->in || !s->per_thread || !s->fixed) abort();
  sj_ir_foreach_ins(&f->body, note_thread, s->per_thread); /* definitions come before uses */
  const void *arg[] = {f, s->fixed};
  sj_ir_foreach_ins(&f->body, note_fixed, arg);
  s->f = f;
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < NBUCKETS; i++) t->buckets[i] = -1;
    t->n = t->pos = 0;
    number_block(f, &f->body, t);
    int nins = 0;
    sj_ir_foreach_ins(&f->body, count_ins, &nins);
    counts_init(&s->all, nins);
    counts_init(&s->branch, nins);
    count_block(f, s->fixed, &f->body, &s->all);
    s->moved = 0;
    lift_block(s, &f->body);
    if (!s->moved) break;
  }
  free(s->in);
  free(s->per_thread);
  free(s->fixed);
  free(s->all.key);
  free(s->all.n);
  free(s->branch.key);
  free(s->branch.n);
  free(s);
  free(t->v);
  free(t->rename);
  free(t);
}
