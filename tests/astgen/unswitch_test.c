/* Two versions of a kernel by the thread's position (astgen/unswitch.c): 1024 threads in 32
 * blocks, each storing A[k] where x + k - 4 lies in [0, 1000) for k = 0 .. 7, get a copy for x
 * in [4, 996], whose tests the ranges decide, and the code as it was for the others; with a
 * barrier, or with one test, the kernel stays as it is. Both versions store what the one did. */
#include <stdio.h>

#include "astgen/irbuild.h"
#include "test_common.h"

static int count(const sj_ir_block *b, int want_if) {
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *x = b->v[i];
    if (x->kind == SJ_IR_INS) {
      n += !want_if && x->ins.op == SJ_IR_ST;
      continue;
    }
    n += want_if + count(&x->then, want_if) + count(&x->other, want_if);
  }
  return n;
}

static sj_ir_func *kernel(int tests, int barrier) {
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_KERNEL, "edges");
  f->grid[0] = 32, f->block[0] = 32;
  sj_ir_add_param(f, (sj_ir_param){SJ_PARAM_ARRAY, SJ_IR_S64, 0, 0, "A"});
  sj_irb b;
  sj_irb_init(&b, f, 1);
  sj_ir_val a = sj_irb_param(&b, 0);
  sj_ir_val block = sj_irb_special(&b, SJ_SPECIAL_CTAID_X),
            lane = sj_irb_special(&b, SJ_SPECIAL_TID_X);
  sj_ir_val x =
      sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64,
                sj_irb_op(&b, SJ_IR_MUL, SJ_IR_S64, block, sj_ir_int(SJ_IR_S64, 32)), lane);
  if (barrier) sj_irb_barrier(&b);
  for (int k = 0; k < tests; k++) {
    sj_ir_val at = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, k - 4));
    sj_ir_val in = sj_irb_op(&b, SJ_IR_AND, SJ_IR_PRED,
                             sj_irb_setp(&b, SJ_CMP_GE, at, sj_ir_int(SJ_IR_S64, 0)),
                             sj_irb_setp(&b, SJ_CMP_LT, at, sj_ir_int(SJ_IR_S64, 1000)));
    sj_ir_node *n = sj_irb_if(&b, in);
    sj_irb_pos pos = sj_irb_enter(&b, &n->then, 0);
    sj_irb_store(&b, a, k, sj_ir_int(SJ_IR_S64, 1));
    sj_irb_leave(&b, pos);
  }
  sj_irb_finish(&b);
  return f;
}

int main(void) {
  sj_ir_func *f = kernel(8, 0);
  sj_ir_unswitch(f);
  const sj_ir_node *last = f->body.v[f->body.n - 1];
  CHECK(last->kind == SJ_IR_IF, "no versions");
  if (last->kind == SJ_IR_IF) {
    CHECK(count(&last->then, 1) == 0 && count(&last->then, 0) == 8,
          "the copy: %d branches (not 0), %d stores (not 8)", count(&last->then, 1),
          count(&last->then, 0));
    CHECK(count(&last->other, 1) == 8 && count(&last->other, 0) == 8,
          "the code as it was: %d branches, %d stores (not 8 and 8)", count(&last->other, 1),
          count(&last->other, 0));
  }
  sj_ir_func_free(f);

  for (int barrier = 0; barrier <= 1; barrier++) {
    int tests = barrier ? 8 : 1;
    f = kernel(tests, barrier);
    int before = count(&f->body, 1);
    sj_ir_unswitch(f);
    CHECK(count(&f->body, 1) <= before && count(&f->body, 0) == tests,
          "%s: %d branches (%d before), %d stores", barrier ? "a barrier" : "one test",
          count(&f->body, 1), before, count(&f->body, 0));
    sj_ir_func_free(f);
  }
  if (!g_fail) printf("unswitch: ok\n");
  return g_fail;
}
