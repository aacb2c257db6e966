/* The launch callback the generated host loop calls: kernel arguments in the order the PTX
 * printer declares them (arrays, scalars, host iterators), limits checked by the driver
 * layer before the launch. */
#include "host/host.h"

#include "host/cuda.h"

int sj_gpu_launch(void *rt, int kernel, const long *host_iterators) {
  sj_gpu_run *run = rt;
  const sj_gpu_kernel *k = &run->kernels[kernel];
  int n = run->narrays + run->nscalars + k->nhost;
  void *params[n + 1];
  sj_devptr arrays[run->narrays + 1];
  float singles[run->nscalars + 1];
  long iters[k->nhost + 1];
  int p = 0;
  for (int i = 0; i < run->narrays; i++) {
    arrays[i] = run->arrays[i];
    params[p++] = &arrays[i];
  }
  for (int i = 0; i < run->nscalars; i++) {
    singles[i] = (float)run->scalars[i]; /* exact: the value came from a float */
    params[p++] =
        run->scalar_types[i] == SJ_TY_FLOAT ? (void *)&singles[i] : (void *)&run->scalars[i];
  }
  for (int i = 0; i < k->nhost; i++) {
    iters[i] = host_iterators[i];
    params[p++] = &iters[i];
  }
  return sj_cuda_launch(run->cuda, k->function, k->grid, k->block, 0, params, run->err);
}
