/* The extents of a kernel's array parameters for the integer arguments it was compiled for:
 * what a binding needs to check an array's shape, not only its size. */
#include "jit/jit.h"

#include "sched/affine.h"

int jit_kernel_param_shape(const jit_kernel *k, int i, long *extents, int max) {
  sj_error err = {0, {0}};
  const char *call = "jit_kernel_param_shape";
  if (!k)
    sj_error_set(&err, JIT_ERR_ARGS, "%s: the kernel is NULL", call);
  else if (i < 0 || i >= k->nparams)
    sj_error_set(&err, JIT_ERR_ARGS, "%s: no parameter %d (the kernel has %d)", call, i,
                 k->nparams);
  else if (max > 0 && !extents)
    sj_error_set(&err, JIT_ERR_ARGS, "%s: extents is NULL but max is %d", call, max);
  if (err.status) { /* an accessor: -1, and the message is this thread's */
    sj_context_fail(NULL, &err);
    return -1;
  }
  const sj_sym *p = k->fn->params[i];
  if (p->kind != SJ_SYM_ARRAY) return 0;
  /* the extents were evaluated (and checked) for this shape when the kernel was built; an
   * open first one was inferred then */
  for (int d = 0; d < p->rank && d < max; d++)
    if (d == 0)
      extents[0] = k->first_extent[i];
    else if (sj_const_value(p->extents[d], k->shape, &extents[d]))
      return -1;
  return p->rank;
}
