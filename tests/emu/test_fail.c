/* Failure injection: run with JIT_EMU_FAIL=alloc:2,load:1,launch:2. The 2nd allocation, the
 * 1st module load and the 2nd launch fail; the others succeed. Usage: test_fail LIB PTXDIR */
#include "emu_test.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIB PTXDIR\n", argv[0]);
    return 2;
  }
  const char *spec = getenv("JIT_EMU_FAIL");
  if (!spec || strcmp(spec, "alloc:2,load:1,launch:2")) {
    fprintf(stderr, "test_fail needs JIT_EMU_FAIL=alloc:2,load:1,launch:2\n");
    return 1;
  }
  CUcontext ctx;
  setup(argv[1], &ctx);
  CUdeviceptr d1, d2, d3;
  CU(cu.cuMemAlloc_v2(&d1, 4096));
  CHECK(cu.cuMemAlloc_v2(&d2, 4096) == CUDA_ERROR_OUT_OF_MEMORY);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "alloc:2") != NULL);
  CU(cu.cuMemAlloc_v2(&d3, 4096));
  char *ptx = read_file(argv[2], "vecadd.ptx"), log[2048];
  CUmodule m;
  CHECK(load_ptx(&m, ptx, log, sizeof log) == CUDA_ERROR_INVALID_PTX);
  CHECK(strstr(log, "line 1;") != NULL && strstr(log, "injected") != NULL);
  CU(load_ptx(&m, ptx, log, sizeof log));
  CUfunction f;
  CU(cu.cuModuleGetFunction(&f, m, "vecadd"));
  int n = 1024;
  void *args[] = {&d1, &d1, &d3, &n};
  CU(cu.cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
  CHECK(cu.cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, NULL, args, NULL) == CUDA_ERROR_LAUNCH_FAILED);
  CHECK(strstr(cu.emuGetLastErrorMessage(), "injected") != NULL);
  /* sticky until the context is destroyed */
  CHECK(cu.cuCtxSynchronize() == CUDA_ERROR_LAUNCH_FAILED);
  CU(cu.cuCtxDestroy_v2(ctx));
  CU(cu.cuCtxCreate_v2(&ctx, 0, 0));
  CU(load_ptx(&m, ptx, log, sizeof log));
  CU(cu.cuModuleGetFunction(&f, m, "vecadd"));
  CU(cu.cuMemAlloc_v2(&d1, 4096));
  CU(cu.cuMemAlloc_v2(&d3, 4096));
  void *args2[] = {&d1, &d1, &d3, &n};
  CU(cu.cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, NULL, args2, NULL));
  CU(cu.cuCtxDestroy_v2(ctx));
  free(ptx);
  return finish("test_fail");
}
