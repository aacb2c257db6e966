/* Flat offsets of array references as linear forms: sum of coef * atom plus a constant,
 * where an atom is a loop iterator or a subexpression that is not linear (% and / by
 * constants, ?:). The lowering uses the form to hoist what does not change in a loop, the
 * model to see a flat array in rows (sched/view.c). */
#ifndef SJ_LINEAR_H
#define SJ_LINEAR_H

#include "base/ast.h"

typedef struct sj_term {
  long coef;
  const sj_expr *atom; /* an iterator (SJ_E_VAR) or another integer expression */
} sj_term;

typedef struct sj_linear {
  long constant;
  int n;
  sj_term *terms; /* malloc'd */
} sj_linear;

/* Whether the integer conversion or arithmetic node e (CAST, UNARY '-', BINARY + - *) is
 * the same operation on its operands' values in the 64-bit arithmetic of offsets: not one
 * that wraps at 2^32 (unsigned int arithmetic) or narrows (a conversion to a smaller type,
 * or to int from unsigned). 0 for other nodes. */
int sj_linear_through(const sj_expr *e);

/* The row-major element offset of ref (an SJ_E_INDEX) for arrays of extents ext. */
void sj_linearize(const sj_expr *ref, const long *ext, const long *shape, sj_linear *out);
void sj_linear_free(sj_linear *l);
/* Whether e uses the value of an iterator for which depends(iterator, user) is nonzero. */
int sj_expr_depends(const sj_expr *e, int (*depends)(const sj_sym *iter, void *user), void *user);

#endif
