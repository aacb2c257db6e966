/* Copies and constants forwarded (astgen/copies.c): a variable's reads after a copy into it read
 * the copied register; a count kept in a variable from constants folds to its value, and its
 * conversion too; assignments overwritten unread, never read, or read by nothing before the
 * function's end, go; a branch reads the copy that holds before it. */
#include <stdio.h>

#include "astgen/irbuild.h"
#include "test_common.h"

static int count_op(const sj_ir_block *b, sj_ir_op op, int dst) {
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const sj_ir_node *x = b->v[i];
    if (x->kind == SJ_IR_INS) {
      n += x->ins.op == op && (!dst || x->ins.dst == dst);
      continue;
    }
    n += count_op(&x->then, op, dst) + count_op(&x->other, op, dst) + count_op(&x->body, op, dst);
  }
  return n;
}

static void is_x(int *reg, void *user) {
  int *want = user;
  if (*reg == want[0]) want[1] = 1;
}

/* Whether an instruction of b reads reg. */
static int reads(sj_ir_block *b, int reg) {
  int want[2] = {reg, 0};
  for (int i = 0; i < b->n; i++)
    if (b->v[i]->kind == SJ_IR_INS) sj_ir_foreach_use(&b->v[i]->ins, is_x, want);
  return want[1];
}

static const sj_ir_ins *def_of(const sj_ir_block *b, int reg) {
  for (int i = 0; i < b->n; i++)
    if (b->v[i]->kind == SJ_IR_INS && b->v[i]->ins.dst == reg) return &b->v[i]->ins;
  return NULL;
}

int main(void) {
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_KERNEL, "copies");
  sj_ir_add_param(f, (sj_ir_param){SJ_PARAM_ARRAY, SJ_IR_F32, 0, 0, "A"});
  sj_irb b;
  sj_irb_init(&b, f, 1);
  sj_ir_val a = sj_irb_param(&b, 0);
  sj_ir_val x = sj_irb_load(&b, a, 0), y = sj_irb_load(&b, a, 1);
  /* sum = 0; sum = sum + x; n = 0; n = n + 1; sum = sum + y; n = n + 1; A[2] = sum / n */
  int sum = sj_irb_var(&b, SJ_IR_F32, "sum"), n = sj_irb_var(&b, SJ_IR_S32, "n");
  int unread = sj_irb_var(&b, SJ_IR_F32, "unread");
  sj_irb_assign(&b, sum, sj_ir_float(SJ_IR_F32, 0));
  sj_irb_assign(&b, n, sj_ir_int(SJ_IR_S32, 0));
  sj_irb_assign(&b, unread, x);
  sj_ir_val s1 = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_F32, sj_ir_reg_val(f, sum), x);
  sj_irb_assign(&b, sum, s1);
  sj_irb_assign(&b, n,
                sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S32, sj_ir_reg_val(f, n), sj_ir_int(SJ_IR_S32, 1)));
  sj_ir_val s2 = sj_irb_op(&b, SJ_IR_ADD, SJ_IR_F32, sj_ir_reg_val(f, sum), y);
  sj_irb_assign(&b, sum, s2);
  sj_irb_assign(&b, n,
                sj_irb_op(&b, SJ_IR_ADD, SJ_IR_S32, sj_ir_reg_val(f, n), sj_ir_int(SJ_IR_S32, 1)));
  sj_ir_val count = sj_irb_cvt(&b, SJ_IR_F32, sj_ir_reg_val(f, n));
  sj_irb_store(&b, a, 2, sj_irb_op(&b, SJ_IR_DIV, SJ_IR_F32, sj_ir_reg_val(f, sum), count));
  /* v = x; if (y > 0) A[3] = v; v = y; A[4] = v: the branch reads x, the store after it y */
  int v = sj_irb_var(&b, SJ_IR_F32, "v");
  sj_irb_assign(&b, v, x);
  sj_ir_node *branch = sj_irb_if(&b, sj_irb_setp(&b, SJ_CMP_GT, y, sj_ir_float(SJ_IR_F32, 0)));
  sj_irb_pos pos = sj_irb_enter(&b, &branch->then, 0);
  sj_irb_store(&b, a, 3, sj_ir_reg_val(f, v));
  sj_irb_leave(&b, pos);
  sj_irb_assign(&b, v, y);
  sj_irb_store(&b, a, 4, sj_ir_reg_val(f, v));
  sj_irb_finish(&b);

  sj_ir_forward_copies(f);
  /* sum's first two assignments are overwritten unread once its reads read s1 and s2 */
  CHECK(count_op(&f->body, SJ_IR_MOV, sum) == 1, "%d assignments of sum left, not 1",
        count_op(&f->body, SJ_IR_MOV, sum));
  const sj_ir_ins *second = def_of(&f->body, s2.reg);
  CHECK(second && second->a.kind == SJ_V_REG && second->b.kind == SJ_V_REG &&
            (second->a.reg == s1.reg || second->b.reg == s1.reg) && second->a.reg != sum &&
            second->b.reg != sum,
        "the second sum reads the first (%d), not sum", s1.reg);
  CHECK(count_op(&f->body, SJ_IR_MOV, unread) == 0, "a variable never read is still assigned");
  const sj_ir_ins *conv = def_of(&f->body, count.reg);
  CHECK(conv && conv->op == SJ_IR_MOV && conv->a.kind == SJ_V_FLOAT && conv->a.f == 2.0,
        "n converted folds to 2.0f");
  CHECK(count_op(&f->body, SJ_IR_ADD, 0) == 2, "%d additions left, not sum's 2",
        count_op(&f->body, SJ_IR_ADD, 0));
  CHECK(count_op(&f->body, SJ_IR_MOV, v) == 0, "v still assigned");
  CHECK(reads(&branch->then, x.reg), "the branch does not read x");
  CHECK(count_op(&f->body, SJ_IR_MOV, n) == 0, "n still assigned");
  sj_ir_func_free(f);
  if (!g_fail) printf("copies: ok\n");
  return g_fail;
}
