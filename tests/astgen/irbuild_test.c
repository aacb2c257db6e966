/* The IR builder's folds (astgen/irbuild.c): an identity drops the instruction but keeps the
 * type the operation asked for, so that a comparison of its result compares as meant (an
 * unsigned range test of a signed value plus an offset that happens to be 0); sums of one base
 * and constants fold. */
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

  /* sums of one base and constants, x being tid - 7: (x + 2) - 1 is tid - 6, of x - 104 and
   * x - 67 the maximum is tid - 74, and (x + 5) - (x + 2) is 3 */
  sj_ir_val one = sj_irb_op(&b, SJ_IR_SUB, SJ_IR_S64,
                            sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 2)),
                            sj_ir_int(SJ_IR_S64, 1));
  sj_ir_val most = sj_irb_op(&b, SJ_IR_MAX, SJ_IR_S64,
                             sj_irb_op(&b, SJ_IR_SUB, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 104)),
                             sj_irb_op(&b, SJ_IR_SUB, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 67)));
  sj_ir_val apart = sj_irb_op(&b, SJ_IR_SUB, SJ_IR_S64,
                              sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 5)),
                              sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S64, x, sj_ir_int(SJ_IR_S64, 2)));
  const sj_ir_ins *def_one = NULL, *def_most = NULL;
  for (int i = 0; i < b.cur->n; i++) {
    const sj_ir_ins *in = &b.cur->v[i]->ins;
    if (b.cur->v[i]->kind != SJ_IR_INS) continue;
    if (one.kind == SJ_V_REG && in->dst == one.reg) def_one = in;
    if (most.kind == SJ_V_REG && in->dst == most.reg) def_most = in;
  }
  CHECK(def_one && def_one->op == SJ_IR_ADD && def_one->a.reg == tid.reg && def_one->b.i == -6,
        "(x + 2) - 1 is tid - 6");
  CHECK(def_most && def_most->op == SJ_IR_ADD && def_most->a.reg == tid.reg && def_most->b.i == -74,
        "max(x - 104, x - 67) is tid - 74");
  CHECK(apart.kind == SJ_V_INT && apart.i == 3, "(x + 5) - (x + 2) is 3 (kind %d)", apart.kind);

  sj_irb_finish(&b);
  sj_ir_func_free(f);
  if (!g_fail) printf("irbuild: ok\n");
  return g_fail;
}
