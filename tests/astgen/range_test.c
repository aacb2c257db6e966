/* Tests decided by ranges (astgen/range.c): in loops of i = 3, 7, .. while i < 40 and j = 0, 4,
 * .. while j < 40, in a block of 32 threads, the tests that the iterators' and the thread id's
 * ranges decide go, the others stay. */
#include <stdio.h>

#include "astgen/irbuild.h"
#include "test_common.h"

static int count_ifs(const sj_ir_block *b) {
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *x = b->v[i];
    if (x->kind == SJ_IR_INS) continue;
    n += x->kind == SJ_IR_IF;
    n += count_ifs(&x->head) + count_ifs(&x->body) + count_ifs(&x->then) + count_ifs(&x->other);
  }
  return n;
}

static int count_stores(const sj_ir_block *b) {
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *x = b->v[i];
    if (x->kind == SJ_IR_INS) {
      n += x->ins.op == SJ_IR_ST;
      continue;
    }
    n += count_stores(&x->body) + count_stores(&x->then) + count_stores(&x->other);
  }
  return n;
}

/* if (cond) A[0] = value; */
static sj_ir_node *store_if(sj_irb *b, sj_ir_val cond, sj_ir_val a, long value) {
  sj_ir_node *n = sj_irb_if(b, cond);
  sj_irb_pos pos = sj_irb_enter(b, &n->then, 0);
  sj_irb_store(b, a, 0, sj_ir_int(SJ_IR_S64, value));
  sj_irb_leave(b, pos);
  return n;
}

int main(void) {
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_KERNEL, "ranges");
  f->block[0] = 32;
  sj_ir_add_param(f, (sj_ir_param){SJ_PARAM_ARRAY, SJ_IR_S64, 0, 0, "A"});
  sj_ir_add_param(f, (sj_ir_param){SJ_PARAM_HOST_ITER, SJ_IR_S64, 0, 0, "x"});
  sj_irb b;
  sj_irb_init(&b, f, 1);
  sj_ir_val a = sj_irb_param(&b, 0), x = sj_irb_param(&b, 1);
  sj_ir_val tid = sj_irb_special(&b, SJ_SPECIAL_TID_X);
  sj_ir_node *loop = sj_irb_loop(&b, sj_ir_int(SJ_IR_S64, 3), sj_ir_int(SJ_IR_S64, 4));
  sj_irb_pos pos = sj_irb_enter(&b, &loop->head, 1);
  sj_ir_val i = sj_ir_reg_val(f, loop->iter);
  loop->cond = sj_irb_setp(&b, SJ_CMP_LT, i, sj_ir_int(SJ_IR_S64, 40));
  b.cur = &loop->body;
  /* outside i's range on both sides, or'ed with a test of x: the test of x alone */
  sj_ir_val out =
      sj_irb_op(&b, SJ_IR_OR, SJ_IR_PRED, sj_irb_setp(&b, SJ_CMP_LT, i, sj_ir_int(SJ_IR_S64, -2)),
                sj_irb_setp(&b, SJ_CMP_GT, i, sj_ir_int(SJ_IR_S64, 44)));
  sj_ir_val by_x = sj_irb_setp(&b, SJ_CMP_LT, x, sj_ir_int(SJ_IR_S64, 7));
  sj_ir_node *kept = store_if(&b, sj_irb_op(&b, SJ_IR_OR, SJ_IR_PRED, by_x, out), a, 1);
  /* i + 2 lies in [5, 41] */
  sj_ir_val shifted = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, i, sj_ir_int(SJ_IR_S64, 2));
  store_if(&b, sj_irb_setp(&b, SJ_CMP_GE, shifted, sj_ir_int(SJ_IR_S64, 5)), a, 2);  /* always */
  store_if(&b, sj_irb_setp(&b, SJ_CMP_GT, shifted, sj_ir_int(SJ_IR_S64, 41)), a, 3); /* never */
  /* the thread id lies in [0, 31] */
  store_if(&b, sj_irb_setp(&b, SJ_CMP_LT, tid, sj_ir_int(SJ_IR_S64, 32)), a, 4); /* always */
  store_if(&b, sj_irb_setp(&b, SJ_CMP_GE, tid, sj_ir_int(SJ_IR_S64, 32)), a, 5); /* never */
  /* i < 20: not decided; inside it i > 25 is, and i > 10 is not */
  sj_ir_node *low = sj_irb_if(&b, sj_irb_setp(&b, SJ_CMP_LT, i, sj_ir_int(SJ_IR_S64, 20)));
  sj_irb_pos in = sj_irb_enter(&b, &low->then, 0);
  store_if(&b, sj_irb_setp(&b, SJ_CMP_GT, i, sj_ir_int(SJ_IR_S64, 25)), a, 6); /* never */
  store_if(&b, sj_irb_setp(&b, SJ_CMP_GT, i, sj_ir_int(SJ_IR_S64, 10)), a, 7);
  sj_irb_leave(&b, in);
  sj_irb_leave(&b, pos);
  /* j = 0, 4, .., 36 while j < 40: a whole number of steps from 0, so j < 37 always */
  sj_ir_node *strided = sj_irb_loop(&b, sj_ir_int(SJ_IR_S64, 0), sj_ir_int(SJ_IR_S64, 4));
  pos = sj_irb_enter(&b, &strided->head, 1);
  sj_ir_val j = sj_ir_reg_val(f, strided->iter);
  strided->cond = sj_irb_setp(&b, SJ_CMP_LT, j, sj_ir_int(SJ_IR_S64, 40));
  b.cur = &strided->body;
  store_if(&b, sj_irb_setp(&b, SJ_CMP_LT, j, sj_ir_int(SJ_IR_S64, 37)), a, 9); /* always */
  store_if(&b, sj_irb_setp(&b, SJ_CMP_LT, j, sj_ir_int(SJ_IR_S64, 36)), a, 10);
  sj_irb_leave(&b, pos);
  /* after the loops, their ranges no longer hold */
  store_if(&b, sj_irb_setp(&b, SJ_CMP_LT, tid, sj_ir_int(SJ_IR_S64, 16)), a, 8);
  sj_irb_finish(&b);
  CHECK(count_ifs(&f->body) == 11 && count_stores(&f->body) == 10, "built: %d ifs, %d stores",
        count_ifs(&f->body), count_stores(&f->body));

  sj_ir_fold_ranges(f);
  /* left: the test of x, i < 20 and i > 10 inside it, j < 36, tid < 16; stores 1, 2, 4, 7, 8,
   * 9, 10 */
  CHECK(count_ifs(&f->body) == 5, "%d ifs left, not 5", count_ifs(&f->body));
  CHECK(count_stores(&f->body) == 7, "%d stores left, not 7", count_stores(&f->body));
  CHECK(kept->cond.kind == SJ_V_REG && kept->cond.reg == by_x.reg,
        "the or'ed test is the test of x alone (reg %d, not %d)", kept->cond.reg, by_x.reg);
  sj_ir_func_free(f);
  if (!g_fail) printf("range: ok\n");
  return g_fail;
}
