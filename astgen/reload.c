/* Loads of an element read or written before, with nothing between that may write it, take
 * the value known. The builder does this within a region of control flow (astgen/irbuild.c);
 * unrolled copies each behind a guard of their own (a split tile's rows, each guarded by the
 * column's place in the step's window) are regions of their own, and their neighbours' loads
 * repeat: 9 shared loads a point of a 9-point stencil where a thread's rows are consecutive, 4
 * after this pass.
 *
 * What may write an element is what the builder assumes: a store or an atomic to the same
 * address space and array (or an unknown one) through another pointer or at the same offset
 * (another thread writing it before the next barrier would be a race the schedules never
 * run), a barrier or a launch anything. A loop's stores count before its first iteration. */
#include "astgen/ir.h"

#include <stdlib.h>

/* How many branch conditions a value loaded in a branch may need where it is used again. */
enum { MAX_NEED = 4 };

typedef struct known {
  int ptr;  /* a register no one assigns again */
  long imm; /* element offset */
  sj_ir_type type;
  int val;                   /* the register that holds the element */
  int live;                  /* 0 once something may have written it */
  int nneed, need[MAX_NEED]; /* predicates that hold where val was loaded */
} known;

typedef struct reload {
  const sj_ir_func *f;
  known *v;
  int n, cap;
  int *rename; /* by register: the register its uses read instead, or 0 */
  int *holds;  /* by register: the predicate holds here (within a branch on it) */
} reload;

static void forget(sj_ir_ins *ins, void *user) {
  reload *s = user;
  int all = ins->op == SJ_IR_BARRIER || ins->op == SJ_IR_LAUNCH;
  if (!all && ins->op != SJ_IR_ST && ins->op != SJ_IR_ATOM) return;
  for (int i = 0; i < s->n; i++)
    if (all || sj_ir_may_alias(s->f, ins->a.reg, ins->imm, s->v[i].ptr, s->v[i].imm))
      s->v[i].live = 0;
}

static int plain(const sj_ir_func *f, sj_ir_val v) {
  return v.kind == SJ_V_REG && !f->regs[v.reg].is_var;
}

static void remember(reload *s, int ptr, long imm, sj_ir_type type, int val) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
    if (!s->v) abort();
  }
  s->v[s->n++] = (known){ptr, imm, type, val, 1, 0, {0}};
}

static int lookup(const reload *s, const sj_ir_ins *ld) {
  for (int i = s->n - 1; i >= 0; i--) {
    const known *k = &s->v[i];
    if (!k->live || k->ptr != ld->a.reg || k->imm != ld->imm || k->type != ld->type) continue;
    int ok = 1;
    for (int c = 0; c < k->nneed; c++) ok &= s->holds[k->need[c]] > 0;
    if (ok) return k->val;
  }
  return 0;
}

static void rename_val(const reload *s, sj_ir_val *v) {
  if (v->kind == SJ_V_REG && s->rename[v->reg]) v->reg = s->rename[v->reg];
}

static void rename_reg(int *reg, void *user) {
  const reload *s = user;
  if (s->rename[*reg]) *reg = s->rename[*reg];
}

static void rename_use(sj_ir_ins *ins, void *user) {
  sj_ir_foreach_use(ins, rename_reg, user);
}

static void walk(reload *s, sj_ir_block *b);

/* A loop's block or an else: what it learns is not known after it. */
static void walk_inner(reload *s, sj_ir_block *b) {
  int n = s->n;
  walk(s, b);
  s->n = n;
}

/* What a branch on a predicate learns stays known where the predicate holds again: unrolled
 * copies each behind the same guard and some behind a guard more (the last rows of a window).
 * PTX registers are visible in the whole kernel. */
static void walk_branch(reload *s, sj_ir_node *n) {
  int n0 = s->n, p = plain(s->f, n->cond) ? n->cond.reg : 0;
  if (p) s->holds[p]++;
  walk(s, &n->then);
  if (p) s->holds[p]--;
  int kept = n0;
  for (int i = n0; i < s->n; i++) {
    known *k = &s->v[i];
    if (!p || k->nneed == MAX_NEED) continue;
    k->need[k->nneed++] = p;
    s->v[kept++] = *k;
  }
  s->n = kept;
  walk_inner(s, &n->other);
}

static void walk(reload *s, sj_ir_block *b) {
  for (int i = 0; i < b->n; i++) {
    sj_ir_node *n = b->v[i];
    if (n->kind != SJ_IR_INS) {
      rename_val(s, &n->init);
      rename_val(s, &n->step);
      rename_val(s, &n->cond);
      if (n->kind == SJ_IR_LOOP) { /* its later iterations run after its stores */
        sj_ir_foreach_ins(&n->head, forget, s);
        sj_ir_foreach_ins(&n->body, forget, s);
        sj_ir_foreach_ins(&n->latch, forget, s);
      }
      if (n->kind == SJ_IR_IF) {
        walk_branch(s, n);
      } else {
        walk_inner(s, &n->head);
        walk_inner(s, &n->body);
        walk_inner(s, &n->latch);
      }
      continue;
    }
    sj_ir_ins *ins = &n->ins;
    rename_use(ins, s);
    if (ins->op == SJ_IR_LD && !ins->guard && plain(s->f, ins->a) && ins->dst &&
        !s->f->regs[ins->dst].is_var) {
      int val = lookup(s, ins);
      if (val) {
        s->rename[ins->dst] = val;
        sj_ir_node_free(n);
        for (int k = i + 1; k < b->n; k++) b->v[k - 1] = b->v[k];
        b->n--, i--;
        continue;
      }
      remember(s, ins->a.reg, ins->imm, ins->type, ins->dst);
      continue;
    }
    forget(ins, s);
    if (ins->op == SJ_IR_ST && !ins->guard && plain(s->f, ins->a) && plain(s->f, ins->b) &&
        s->f->regs[ins->b.reg].type == s->f->regs[ins->a.reg].elem)
      remember(s, ins->a.reg, ins->imm, s->f->regs[ins->a.reg].elem, ins->b.reg);
  }
}

void sj_ir_reload(sj_ir_func *f) {
  reload s = {f,
              NULL,
              0,
              0,
              calloc((size_t)f->nregs + 1, sizeof(int)),
              calloc((size_t)f->nregs + 1, sizeof(int))};
  if (!s.rename || !s.holds) abort();
  walk(&s, &f->body);
  free(s.v);
  free(s.rename);
  free(s.holds);
}
