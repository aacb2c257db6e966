/* The extents of a kernel's array parameters for the integer arguments it was compiled for:
 * what a binding needs to check an array's shape, not only its size. */
#include "jit/jit.h"

#include "sched/affine.h"

int jit_kernel_param_shape(const jit_kernel *k, int i, long *extents, int max) {
  if (!k || i < 0 || i >= k->nparams) return -1;
  const sj_sym *p = k->fn->params[i];
  if (p->kind != SJ_SYM_ARRAY) return 0;
  /* the extents were evaluated (and checked) for this shape when the kernel was built */
  for (int d = 0; d < p->rank && d < max; d++)
    if (sj_const_value(p->extents[d], k->shape, &extents[d])) return -1;
  return p->rank;
}
