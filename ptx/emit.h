/* The PTX printer's state and its one-instruction emitter. Internal to ptx/. */
#ifndef SJ_PTX_EMIT_H
#define SJ_PTX_EMIT_H

#include "astgen/ir.h"
#include "base/buf.h"

enum { PX_PRED, PX_B32, PX_B64, PX_F32, PX_F64, PX_NCLASS };

/* The module's dynamic shared memory: a name no kernel (the C function's name and a suffix)
 * takes, since C reserves names that begin with two underscores. */
#define SJ_PTX_SHARED "__sj_shared"

typedef struct px {
  const sj_ir_func *f;
  sj_buf body;
  int *num;             /* by IR register: its number in its class */
  int count[PX_NCLASS]; /* registers used per class */
  int labels;
  int error_reg; /* the error word's address (B64), 0 when the kernel cannot trap */
  /* integer products folded into the add that uses them (mad.lo): by the add's destination,
   * the product; by the product's destination, whether it is folded (not printed) */
  const sj_ir_ins **mad;
  char *folded;
  int failed;
  char why[160];
} px;

int sj_px_class(const sj_ir_func *f, int reg);
int sj_px_temp(px *x, int cls);
/* Prints one instruction; its guard (a predicate) becomes @p. */
void sj_px_ins(px *x, const sj_ir_ins *ins);
/* The text of a register of class cls and number n. */
void sj_px_reg_text(int cls, int n, char *out, size_t size);
extern const char *const sj_px_class_type[PX_NCLASS];
extern const char *const sj_px_class_prefix[PX_NCLASS];

#endif
