/* Compiling a file of tests/kernels for given integer arguments, as the schedule tests do:
 * the arrays NULL (compiled, never run), float and double scalars 0.5. */
#ifndef SJ_KERNEL_FILE_H
#define SJ_KERNEL_FILE_H

#include <stdio.h>
#include <stdlib.h>

#include "base/file.h"
#include "stenciljit.h"

/* dir/file compiled in ctx with its integer parameters from ints (cycled, n of them) into *k:
 * the jit_status, or -1 when the file or its parameters cannot be read. */
static inline int sj_compile_kernel_file(jit_context *ctx, const char *dir, const char *file,
                                         const int *ints, int n, jit_kernel **k) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  char *src = sj_read_file(path, NULL);
  jit_param_info params[16];
  jit_arg args[16];
  int count = 0, used = 0, st = -1;
  *k = NULL;
  if (src && ctx && !jit_function_params(ctx, src, NULL, params, 16, &count)) {
    for (int i = 0; i < count; i++)
      args[i] = params[i].kind == JIT_ARG_INT      ? JIT_INT(ints[used++ % n])
                : params[i].kind == JIT_ARG_FLOAT  ? JIT_FLOAT(0.5f)
                : params[i].kind == JIT_ARG_DOUBLE ? JIT_DOUBLE(0.5)
                                                   : JIT_PTR(NULL);
    st = jit_kernel_compile(ctx, src, NULL, args, count, k);
  }
  free(src);
  return st;
}

#endif
