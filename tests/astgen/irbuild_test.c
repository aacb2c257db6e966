/* The IR builder's folds (astgen/irbuild.c): an identity drops the instruction but keeps the
 * type the operation asked for, so that a comparison of its result compares as meant (an
 * unsigned range test of a signed value plus an offset that happens to be 0). */
#include <stdio.h>

#include "astgen/irbuild.h"
#include "test_common.h"

int main(void) {
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_KERNEL, "fold");
  sj_irb b;
  sj_irb_init(&b, f, 0);
  sj_ir_val tid = sj_irb_special(&b, SJ_SPECIAL_TID_X);
  sj_ir_val x = sj_irb_op(&b, SJ_IR_SUB, SJ_IR_S64, sj_irb_cvt(&b, SJ_IR_S64, tid),
                          sj_ir_int(SJ_IR_S64, 7)); /* may be negative */
  CHECK(x.kind == SJ_V_REG && x.type == SJ_IR_S64, "x: kind %d type %d", x.kind, x.type);

  /* the same type: no instruction, x itself */
  sj_ir_val same = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 0));
  CHECK(same.kind == SJ_V_REG && same.reg == x.reg, "x + 0 is x (reg %d, not %d)", same.reg, x.reg);
  sj_ir_val times = sj_irb_op(&b, SJ_IR_MUL, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 1));
  CHECK(times.kind == SJ_V_REG && times.reg == x.reg, "x * 1 is x");

  /* unsigned: x converted, and the range test on it unsigned, so x < 0 fails it */
  sj_ir_val u = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_U64, x, sj_ir_int(SJ_IR_U64, 0));
  CHECK(u.type == SJ_IR_U64, "x + 0 as u64 has type %d", u.type);
  sj_ir_val in_range = sj_irb_setp(&b, SJ_CMP_LE, u, sj_ir_int(SJ_IR_U64, 9));
  const sj_ir_ins *test = NULL;
  for (int i = 0; i < b.cur->n; i++)
    if (b.cur->v[i]->kind == SJ_IR_INS && b.cur->v[i]->ins.dst == in_range.reg)
      test = &b.cur->v[i]->ins;
  CHECK(test && test->op == SJ_IR_SETP && test->a.type == SJ_IR_U64,
        "the comparison compares unsigned (its operand's type %d)", test ? (int)test->a.type : -1);

  /* constants fold to the type asked for */
  sj_ir_val c =
      sj_irb_op(&b, SJ_IR_ADD, SJ_IR_U64, sj_ir_int(SJ_IR_S64, -1), sj_ir_int(SJ_IR_S64, 0));
  CHECK(c.kind == SJ_V_INT && c.type == SJ_IR_U64, "a constant: kind %d type %d", c.kind, c.type);

  sj_irb_finish(&b);
  sj_ir_func_free(f);
  if (!g_fail) printf("irbuild: ok\n");
  return g_fail;
}
