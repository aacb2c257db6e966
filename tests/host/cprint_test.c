/* The C printer (host/cprint.c): a comparison compares as PTX's setp does, at its first
 * operand's type, whatever C's conversions would make of its operands (an int against an
 * unsigned int compares unsigned in C, so -1 < 1 would fail). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astgen/irbuild.h"
#include "host/host.h"
#include "test_common.h"

int main(void) {
  sj_ir_func *f = sj_ir_func_new(SJ_FUNC_CPU, "cmp");
  sj_irb b;
  sj_irb_init(&b, f, 0);
  sj_ir_val tid = sj_irb_special(&b, SJ_SPECIAL_CPU_TID);
  sj_ir_val s =
      sj_irb_op(&b, SJ_IR_SUB, SJ_IR_S32, sj_irb_cvt(&b, SJ_IR_S32, tid), sj_ir_int(SJ_IR_S32, 1));
  sj_ir_val u = sj_irb_cvt(&b, SJ_IR_U32, tid);
  sj_irb_setp(&b, SJ_CMP_LT, s, u);
  sj_irb_finish(&b);
  sj_ir_module mod = {"cmp", 1, &f, 0, NULL};
  char *c = sj_print_c(&mod);
  CHECK(c != NULL, "no C");
  /* both operands converted to int: C compares (int)r1 - 1 against an unsigned int unsigned */
  const char *want = "((int)(((int)r1) - 1) < (int)((unsigned int)r1))";
  CHECK(c && strstr(c, want), "the comparison is not %s:\n%s", want, c ? c : "");
  free(c);
  sj_ir_func_free(f);
  if (!g_fail) printf("cprint: ok\n");
  return g_fail;
}
