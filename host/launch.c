/* The launch callback the generated host loop calls: kernel arguments in the order of the
 * kernel's parameters, limits checked by the driver layer before the launch. */
#include "host/host.h"

#include "host/cuda.h"

int sj_gpu_launch(void *rt, int kernel, const long *host_iterators) {
  sj_gpu_run *run = rt;
  const sj_gpu_kernel *k = &run->kernels[kernel];
  int n = k->nparams;
  void *params[n + 1];
  union {
    sj_devptr p;
    float f;
    double d;
    long l;
  } values[n + 1];
  for (int i = 0; i < n; i++) {
    const sj_ir_param *p = &k->params[i];
    switch (p->kind) {
    case SJ_PARAM_ARRAY:
      values[i].p = run->arrays[p->index];
      break;
    case SJ_PARAM_SCALAR:
      if (p->type == SJ_IR_F32)
        values[i].f = (float)run->scalars[p->index]; /* exact: the value came from a float */
      else
        values[i].d = run->scalars[p->index];
      break;
    case SJ_PARAM_HOST_ITER:
      values[i].l = host_iterators[p->index];
      break;
    case SJ_PARAM_ERROR:
      values[i].p = run->error;
      break;
    }
    params[i] = &values[i];
  }
  return sj_cuda_launch(run->cuda, k->function, k->grid, k->block, k->shared, params, run->err);
}
