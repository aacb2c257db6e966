/* Reductions in parallel (a `reduce` mark, sched/baseline.c; reassociation allowed, or the same in
 * any order). Each thread accumulates the terms of its instances into a private partial, starting
 * from the operation's identity, and keeps the address of the element they accumulate into. At the
 * end of the kernel, where every lane of every warp is, the partials of a warp are combined
 * by a butterfly of shuffles (after five steps every lane holds the warp's total), the
 * addresses likewise by a maximum (lanes that ran no instance hold 0, the others one same
 * address: the mapping checked that a warp's lanes share the element); the warps of a block
 * then meet in shared memory (block_combine), and one atomic per block (or per warp) combines
 * the total into the element and so the blocks. The element's value before the loop is in
 * memory and so takes part exactly once. */
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
    const sj_expr *lhs = r->stmt->body[r->body]->lhs, *mem = sj_model_replaced(l->m, lhs);
    p->elem = sj_lw_type(lhs->type);
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

/* A register holding the element pointer v, with what the partials' target points into
 * (the loads, shuffles and atomics need its element type, space and array). */
static sj_ir_val as_target(sj_lower *l, sj_ir_val v, int i) {
  sj_ir_reg *p = &l->b.f->regs[v.reg];
  *p = l->b.f->regs[l->target[i]];
  p->is_var = 0;
  return v;
}

/* The element's atomic combination with total, reduction i's, where guard holds; a constant
 * set's is a plain store of the constant where the total flag is set: every store has the same
 * bits, in any order. */
static void combine(sj_lower *l, int i, sj_ir_val where, sj_ir_val total, sj_ir_val guard) {
  sj_irb *b = &l->b;
  const sj_reduction *r = &l->reduce->r[i];
  sj_ir_type t = sj_lw_red_type(r);
  if (r->op == SJ_RED_SET) {
    sj_ir_val set = sj_irb_setp(b, SJ_CMP_GT, total, sj_ir_int(t, 0));
    sj_ir_node *n = sj_irb_if(b, sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, guard, set));
    sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
    const sj_expr *k = r->acc;
    sj_ir_type et = sj_lw_type(k->type);
    sj_irb_store(b, where, 0,
                 k->kind == SJ_E_FLOAT ? sj_ir_float(et, k->fval) : sj_ir_int(et, k->ival));
    sj_irb_leave(b, pos);
    return;
  }
  sj_ir_ins *atom = sj_irb_emit(b, SJ_IR_ATOM, t);
  atom->a = where;
  atom->b = total;
  atom->red = sj_lw_red_op(r->op);
  atom->guard = guard.reg;
  if (r->chosen) { /* the element replaced only where total compares so with it */
    atom->imm = 1;
    atom->cmp = r->chosen == SJ_OP_GT   ? SJ_CMP_GT
                : r->chosen == SJ_OP_GE ? SJ_CMP_GE
                : r->chosen == SJ_OP_LT ? SJ_CMP_LT
                                        : SJ_CMP_LE;
  }
}

/* Where the block has several warps, their totals meet in shared memory and warp 0 combines
 * them: one atomic per block where every warp's lanes share one element (a dot product; the
 * atomics on one element serialize at the L2), else one per warp as before (each warp its row).
 * nwarps <= 32: a block has at most 1024 threads. */
static void block_combine(sj_lower *l, int i, long nwarps, sj_ir_val warp, sj_ir_val lane,
                          sj_ir_val first, sj_ir_val total, sj_ir_val where) {
  sj_irb *b = &l->b;
  const sj_reduction *r = &l->reduce->r[i];
  sj_ir_type t = sj_lw_red_type(r);
  sj_ir_op op = sj_lw_red_op(r->op);
  int vals = sj_ir_add_shared(b->f, (sj_ir_shared){t, nwarps});
  int addrs = sj_ir_add_shared(b->f, (sj_ir_shared){SJ_IR_PTR, nwarps});
  sj_ir_node *n = sj_irb_if(b, first);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  sj_irb_store(b, sj_irb_ptradd(b, sj_irb_shared(b, vals, -1), warp), 0, total);
  sj_irb_store(b, sj_irb_ptradd(b, sj_irb_shared(b, addrs, -1), warp), 0, where);
  sj_irb_leave(b, pos);
  sj_irb_barrier(b);
  n = sj_irb_if(b, sj_irb_setp(b, SJ_CMP_EQ, warp, sj_ir_int(SJ_IR_S64, 0)));
  pos = sj_irb_enter(b, &n->then, 0);
  /* lane k holds warp k's total and element (lanes beyond the warps: the identity and none) */
  sj_ir_val in = sj_irb_setp(b, SJ_CMP_LT, lane, sj_ir_int(SJ_IR_S64, nwarps));
  sj_ir_val at = sj_irb_op(b, SJ_IR_MIN, SJ_IR_S64, lane, sj_ir_int(SJ_IR_S64, nwarps - 1));
  sj_ir_val v = sj_irb_load(b, sj_irb_ptradd(b, sj_irb_shared(b, vals, -1), at), 0);
  v = sj_irb_op3(b, SJ_IR_SELP, t, v, sj_lw_red_identity(r->op, t), in);
  sj_ir_val a = sj_irb_load(b, sj_irb_ptradd(b, sj_irb_shared(b, addrs, -1), at), 0);
  a = as_target(l, sj_irb_op3(b, SJ_IR_SELP, SJ_IR_PTR, a, sj_ir_int(SJ_IR_PTR, 0), in), i);
  sj_ir_val some = sj_irb_setp(b, SJ_CMP_NE, a, sj_ir_int(SJ_IR_PTR, 0));
  /* one element: warp 0's, where every warp that ran an instance has it (a warp's lanes agree
   * when the least of their flags is 1) */
  sj_ir_val a0 = as_target(l, sj_irb_load(b, sj_irb_shared(b, addrs, -1), 0), i);
  sj_ir_val agree =
      sj_irb_op3(b, SJ_IR_SELP, SJ_IR_S32, sj_ir_int(SJ_IR_S32, 0), sj_ir_int(SJ_IR_S32, 1),
                 sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, some, sj_irb_setp(b, SJ_CMP_NE, a, a0)));
  agree = butterfly(b, SJ_IR_MIN, SJ_IR_S32, agree);
  sj_ir_val one =
      sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, sj_irb_setp(b, SJ_CMP_NE, a0, sj_ir_int(SJ_IR_PTR, 0)),
                sj_irb_setp(b, SJ_CMP_EQ, agree, sj_ir_int(SJ_IR_S32, 1)));
  sj_ir_val block_total = butterfly(b, op, t, v);
  combine(l, i, a0, block_total, sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, first, one));
  sj_ir_val apart = sj_irb_setp(b, SJ_CMP_EQ, agree, sj_ir_int(SJ_IR_S32, 0));
  apart = sj_irb_op(b, SJ_IR_OR, SJ_IR_PRED, apart,
                    sj_irb_setp(b, SJ_CMP_EQ, a0, sj_ir_int(SJ_IR_PTR, 0)));
  combine(l, i, a, v, sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, some, apart));
  sj_irb_leave(b, pos);
}

void sj_lw_reduce_finish(sj_lower *l) {
  sj_irb *b = &l->b;
  const unsigned *blk = b->f->block;
  long nwarps = (long)blk[0] * blk[1] * blk[2] / WARP;
  sj_ir_val tid = sj_irb_special(b, SJ_SPECIAL_TID_X);
  sj_ir_val lane = sj_irb_op(b, SJ_IR_BAND, SJ_IR_S64, tid, sj_ir_int(SJ_IR_S64, WARP - 1));
  sj_ir_val first = sj_irb_setp(b, SJ_CMP_EQ, lane, sj_ir_int(SJ_IR_S64, 0));
  /* warps are runs of 32 linear thread ids, and blk[0] is a multiple of 32 */
  sj_ir_val warp = sj_irb_op(b, SJ_IR_SHR, SJ_IR_S64, tid, sj_ir_int(SJ_IR_S64, 5));
  if (blk[1] * blk[2] > 1) {
    sj_ir_val row = sj_irb_special(b, SJ_SPECIAL_TID_Y);
    if (blk[2] > 1)
      row = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, row,
                      sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, sj_irb_special(b, SJ_SPECIAL_TID_Z),
                                sj_ir_int(SJ_IR_S64, blk[1])));
    row = sj_irb_op(b, SJ_IR_MUL, SJ_IR_S64, row, sj_ir_int(SJ_IR_S64, blk[0] / WARP));
    warp = sj_irb_op(b, SJ_IR_ADD, SJ_IR_S64, warp, row);
  }
  for (int i = 0; i < l->reduce->n; i++) {
    const sj_reduction *r = &l->reduce->r[i];
    sj_ir_type t = sj_lw_red_type(r);
    sj_ir_op op = sj_lw_red_op(r->op);
    sj_ir_val total = butterfly(b, op, t, sj_ir_reg_val(b->f, l->partial[i]));
    sj_ir_val where =
        as_target(l, butterfly(b, SJ_IR_MAX, SJ_IR_PTR, sj_ir_reg_val(b->f, l->target[i])), i);
    if (nwarps > 1) {
      block_combine(l, i, nwarps, warp, lane, first, total, where);
      continue;
    }
    sj_ir_val some = sj_irb_setp(b, SJ_CMP_NE, where, sj_ir_int(SJ_IR_PTR, 0));
    combine(l, i, where, total, sj_irb_op(b, SJ_IR_AND, SJ_IR_PRED, first, some));
  }
}
