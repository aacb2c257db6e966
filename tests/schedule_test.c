/* The decisions the schedulers explain: the stencil form is recognized where the time loop
 * carries every dependence (several nests folded into one time dimension) and refused
 * where a sweep updates in place; parallel loops are found in other affine nests; a nest
 * without one runs in one thread on the GPU. The files are the test kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stenciljit.h"
#include "base/file.h"

static int failures;

/* Compiles dir/file for the integer arguments given (arrays NULL) on device and checks
 * that the explanation contains every wanted fragment and none of the unwanted one. */
static void expect(const char *dir, const char *file, jit_device device, const int *ints, int n,
                   const char *const *wanted, const char *unwanted) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  char *src = sj_read_file(path, NULL);
  jit_context *ctx = jit_context_create(device);
  jit_param_info params[16];
  int count = 0, used = 0;
  jit_arg args[16];
  if (!src || !ctx || jit_function_params(ctx, src, NULL, params, 16, &count)) {
    printf("FAIL %s: cannot set up (%s)\n", file, ctx ? jit_context_error(ctx) : jit_last_error());
    failures++;
  } else {
    for (int i = 0; i < count; i++)
      args[i] = params[i].kind == JIT_ARG_INT      ? JIT_INT(ints[used++ % n])
                : params[i].kind == JIT_ARG_FLOAT  ? JIT_FLOAT(0.5f)
                : params[i].kind == JIT_ARG_DOUBLE ? JIT_DOUBLE(0.5)
                                                   : JIT_PTR(NULL);
    jit_kernel *k;
    if (jit_kernel_compile(ctx, src, NULL, args, count, &k)) {
      printf("FAIL %s: %s\n", file, jit_context_error(ctx));
      failures++;
    } else {
      const char *text = jit_kernel_schedule(k);
      for (int i = 0; wanted[i]; i++)
        if (!strstr(text, wanted[i])) {
          printf("FAIL %s: the schedule does not say \"%s\":\n%s\n", file, wanted[i], text);
          failures++;
        }
      if (unwanted && strstr(text, unwanted)) {
        printf("FAIL %s: the schedule says \"%s\"\n", file, unwanted);
        failures++;
      }
      jit_kernel_release(k);
    }
  }
  jit_context_destroy(ctx);
  free(src);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: schedule_test KERNEL_DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  const int shape[] = {4, 40, 36};
  expect(dir, "jacobi2d_5pt.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"stencil form: loop 't'", "over 1 nest", NULL}, "not in stencil");
  expect(dir, "fdtd2d.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"stencil form", "over 4 nests folded", NULL}, "not in stencil");
  expect(dir, "jacobi2d_copyback.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"over 2 nests folded", NULL}, "not in stencil");
  expect(dir, "seidel2d.c", JIT_DEVICE_CPU, shape, 3,
         (const char *const[]){"not in stencil form", "sequential band", NULL}, "parallel loops");
  const int mm[] = {32, 24, 16};
  expect(dir, "matmul.c", JIT_DEVICE_CPU, mm, 3, (const char *const[]){"parallel loops", NULL},
         "stencil form: loop");
  expect(dir, "matmul.c", JIT_DEVICE_EMU, mm, 3,
         (const char *const[]){"kernel 1: grid", "2 parallel loops", NULL}, NULL);
  const int one[] = {100};
  expect(dir, "prefix_sum.c", JIT_DEVICE_EMU, one, 1,
         (const char *const[]){"no parallel loop: runs in one thread", "block 1x1x1", NULL},
         "parallel loops");
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
