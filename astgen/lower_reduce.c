/* Reductions in parallel (a `reduce` mark, sched/baseline.c; reassociation allowed, or the same in
 * any order). Each thread accumulates the terms of its instances into a private partial, starting
 * from the operation's identity, and keeps the address of the element they accumulate into. At the
 * end of the kernel, where every lane of every warp is, the partials of a warp are combined
 * by a butterfly of shuffles (after five steps every lane holds the warp's total), the
 * addresses likewise by a maximum (lanes that ran no instance hold 0, the others one same
 * address: the mapping checked that a warp's lanes share the element), and lane 0 combines the
 * total into the element with one atomic, which also combines the warps and blocks. The
 * element's value before the loop is in memory and so takes part exactly once. */
#include "astgen/lower.h"

#include <stdlib.h>

enum { WARP = 32 };

void sj_lw_reduce_start(sj_lower *l, const sj_reduce *red) {
  sj_irb *b = &l->b;
  if (l->reduce || b->f->block[0] % WARP) {
    sj_lw_fail(l, "a reduce mark in a kernel with another or with blocks narrower than a warp");
    return;
  }
  l->reduce = red;
  l->partial = calloc((size_t)red->n, sizeof *l->partial);
  l->target = calloc((size_t)red->n, sizeof *l->target);
  if (!l->partial || !l->target) abort();
  /* set in the prologue: every lane has them at the end, whatever guards the mark is under */
  sj_ir_block *at = b->cur;
  b->cur = &b->prologue;
  for (int i = 0; i < red->n; i++) {
    const sj_reduction *r = &red->r[i];
    sj_ir_type t = sj_lw_red_type(r);
    l->partial[i] = sj_irb_var(b, t, NULL);
    sj_irb_assign(b, l->partial[i], sj_lw_red_identity(r->op, t));
    l->target[i] = sj_irb_var(b, SJ_IR_PTR, NULL);
    sj_ir_reg *p = &b->f->regs[l->target[i]];
    const sj_expr *lhs = r->stmt->body[r->body]->lhs, *mem = sj_model_local_ref(l->m, lhs);
    p->elem = t;
    p->space = SJ_SPACE_GLOBAL;
    p->array = (mem ? mem : lhs)->sym->id;
    sj_irb_assign(b, l->target[i], sj_ir_int(SJ_IR_PTR, 0));
  }
  b->cur = at;
}

/* v combined by op with its value in the lane imm away, for imm = 16, 8, 4, 2, 1: every
 * lane ends with the combination of the whole warp. */
static sj_ir_val butterfly(sj_irb *b, sj_ir_op op, sj_ir_type t, sj_ir_val v) {
  for (int step = WARP / 2; step >= 1; step /= 2) {
    int dst = sj_ir_new_reg(b->f, t, 0);
    sj_ir_ins *shfl = sj_irb_emit(b, SJ_IR_SHFL, t);
    shfl->dst = dst;
    shfl->a = v;
    shfl->imm = step;
    v = sj_irb_op(b, op, t, v, sj_ir_reg_val(b->f, dst));
  }
  return v;
}

void sj_lw_reduce_finish(sj_lower *l) {
  sj_irb *b = &l->b;
  sj_ir_val lane = sj_irb_op(b, SJ_IR_BAND, SJ_IR_S64, sj_irb_special(b, SJ_SPECIAL_TID_X),
                             sj_ir_int(SJ_IR_S64, WARP - 1));
  sj_ir_val first = sj_irb_setp(b, SJ_CMP_EQ, lane, sj_ir_int(SJ_IR_S64, 0));
  for (int i = 0; i < l->reduce->n; i++) {
    const sj_reduction *r = &l->reduce->r[i];
    sj_ir_type t = sj_lw_red_type(r);
    sj_ir_op op = sj_lw_red_op(r->op);
    sj_ir_val total = butterfly(b, op, t, sj_ir_reg_val(b->f, l->partial[i]));
    sj_ir_val where = butterfly(b, SJ_IR_MAX, SJ_IR_PTR, sj_ir_reg_val(b->f, l->target[i]));
    sj_ir_reg *p = &b->f->regs[where.reg]; /* what the element's pointer points into */
    *p = b->f->regs[l->target[i]];
    p->is_var = 0;
    sj_ir_val some = sj_irb_setp(b, SJ_CMP_NE, where, sj_ir_int(SJ_IR_PTR, 0));
    sj_ir_val leader = sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, first, some);
    sj_ir_ins *atom = sj_irb_emit(b, SJ_IR_ATOM, t);
    atom->a = where;
    atom->b = total;
    atom->red = op;
    atom->guard = leader.reg;
  }
}
